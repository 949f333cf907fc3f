"""The docstring of :class:`~sklearn_localregret.LocalRegretForestClassifier`.

It is the forest's manual (parameters, attributes, prediction, cost, drift,
examples), about 160 lines: kept here so that the estimator's module reads as
code. ``_forest.py`` sets it as the class's ``__doc__``; the text, with its
indentation, is the class's docstring as it was written in the class
(numpydoc, the API pages and the doctests read it from the class).
"""

__all__ = ["FOREST_CLASSIFIER_DOCSTRING"]

FOREST_CLASSIFIER_DOCSTRING = """\
Online bagging of local-regret trees, combined with a regret guarantee.

    ``n_estimators`` :class:`~sklearn_localregret.LocalRegretTreeClassifier`
    members learn the stream, each on its own random subset of the columns
    (chosen at the first fit, ``max_features``) and with each row weighted by
    its ``sample_weight`` times a Poisson(``lambda_value``) draw (online
    bagging, as River's adaptive random forest does), and places its
    numeric thresholds at quantile levels shifted by its own seed (the user
    guide, "The forest"). Each member forgets as
    the tree does (``discount``) and is replaced by a fresh tree when a drift
    detector on its own mistakes fires (``drift_detector``). Missing values
    and categorical columns are read as the tree reads them. The forest
    predicts with AdaHedge over ``n_estimators + 4`` experts: its *vote* (the
    class the members' mean probability favours), each member's own hedged
    prediction, two root models of every row (the tree's Gaussian naive
    Bayes and passive-aggressive linear models) and the mean of its members'
    root naive Bayes models, all scored on each round's rows before they
    learn it (test-then-train; the rounds of a streaming call, more than
    one round and at most 64 rows, on the predictions before the call).
    The members share one expert's prior weight, the vote and each root
    expert have one each. Its
    expected mistakes exceed the best expert's by at most
    :attr:`combination_regret_bound_` (plus a handicap of 10 rows against
    each member; the user guide, "The forest").

    Parameters
    ----------
    n_estimators : int, default=10
        Number of member trees.
    max_features : {"sqrt", "log2"}, int, float or None, default=None
        Columns each member sees, counted as scikit-learn's forests count
        them for a split: ``"sqrt"`` and ``"log2"`` of the number of
        features, an int as is (cut to the number of features), a float in
        (0, 1] as that fraction, None all of them; at least one. Here they
        are fixed per member for the whole stream (the random subspace
        method), not drawn at each split as in
        ARF, so a member without an informative column never sees it. The
        default, all columns, was chosen by ``benchmarks/bench_forest.py``:
        ``"sqrt"`` and ``0.5`` lost by 0.06 to 0.13 on the streams of 2 to 9
        features (Bananas, SEA, STAGGER, Agrawal) and won by at most 0.02 on
        Phishing and ImageSegments.
    lambda_value : float in (0, 1e6], default=6.0
        Rate of the Poisson draws that weigh each row for each member (ARF's
        and leveraging bagging's 6; 1 is Oza's online bagging, whose members
        skip a third of the rows). 6 was lower than or level with 1 on 5 of
        6 streams of ``benchmarks/bench_forest.py``.
    drift_detector : {"adwin"} or None, default="adwin"
        A detector per member, fed with the member's 0/1 loss on each row
        (of positive weight) before it learnt it: ``"adwin"`` is ADWIN with
        ``delta=0.001`` (ARF's), acting only when the error rises. When it
        fires, the member is replaced, after that round, by a fresh tree.
        None: the members only forget (``discount``). Changed between calls
        (``set_params``), it starts the detection (with empty windows) or
        stops it. On
        ``benchmarks/bench_forest.py`` the detectors lowered the error on
        STAGGER, ``inverted``, LED with drift and Agrawal and changed nothing
        on the stationary streams, where they never fired (the user guide,
        "The forest").
    batch_size : int, default=10
        Rows per round, of the forest and of every member. Twice the tree's
        default: each member draws and walks its trees once per 10 rows,
        which made the forest 1.5-1.7x faster in calls of 10 rows, its
        error level within the intervals on 7 of 8 streams over 9 seeds
        (STAGGER +0.001; the user guide, "The forest"). The regret bounds,
        in rows, grow by ``sqrt(2)``.
    discount : float, "auto" or tuple of float, default=0.98
        Passed to every member (see
        :class:`~sklearn_localregret.LocalRegretTreeClassifier`). With
        ``batch_size=10`` it keeps the tree's default window of
        ``batch_size / (1 - discount) = 500`` rows.
    binarize, L, bias, max_thresholds, refined_features, warm_start, \
max_depth, n_mcmc_steps, predict_tolerance, max_categories, \
leaf_prediction
        Passed to every member when it is made: see
        :class:`~sklearn_localregret.LocalRegretTreeClassifier`. The members
        learn local external regret and predict with their hedge.
    n_jobs : int or None, default=None
        Threads the members learn (and predict large inputs) in; None is 1,
        -1 all cores. The members' kernels release the GIL. The model is the
        same for every ``n_jobs``.
    random_state : int, Generator, RandomState instance or None, default=None
        Seeds the subspaces, each member's seed and bagging draws, and the
        forest's randomised predictions.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features, when ``X`` had string column names.
    estimators_ : list of LocalRegretTreeClassifier
        The members, each fitted on its columns ``estimators_features_[k]``.
    estimators_features_ : list of ndarray of int
        The columns each member reads, sorted.
    n_drifts_ : ndarray of int of shape (n_estimators,)
        How many times each member was replaced on a detected drift.
    categories_ : list of length ``n_features_in_``
        For a categorical column, its categories in the order of their codes
        (None for the missing value); None for a numeric column.
    n_rounds_ : int
        Rounds learnt.
    n_samples_seen_ : int
        Rows seen.
    n_online_mistakes_ : float
        The forest's expected mistakes (sample weight) over the rounds
        learnt, each round predicted before it was learnt (a streaming
        call's rounds, with the weights from before the call, as its caller
        predicted them).
    combination_weights_ : ndarray of shape (n_estimators + 4,)
        The hedge's weights: the vote's first, then each member's, then the
        Gaussian and the linear root models', then the members' root naive
        Bayes models' (``n_estimators + 3`` for a forest saved before that
        expert, ``n_estimators + 1`` before the root models; without
        ``leaf_prediction="adaptive"`` the members keep no naive Bayes
        models, and the forest has not that expert either).
    combination_losses_ : ndarray of shape (n_estimators + 4,)
        The experts' cumulative losses, the handicap included.
    combination_regret_bound_ : float
        The forest's expected mistakes minus any expert's loss
        (:attr:`combination_losses_`) are at most this: ``Delta (1 + ln(1 /
        pi_k) / ln N)`` at a member's prior share ``pi_k`` (``2 Delta`` for a
        forest saved before the prior).

    See Also
    --------
    LocalRegretTreeClassifier : One member.
    river.forest.ARFClassifier : Adaptive random forest of Hoeffding trees.

    Notes
    -----
    **Prediction.** :meth:`predict` picks each row's expert with the hedge's
    weights, then that expert's class (a member's: its hedged prediction),
    with a uniform that is a function of the row, ``random_state`` and
    ``n_rounds_`` (the same answer every time, alone or in a batch); each
    class has the probability the mixture of the experts' predictions gives
    it. While the vote carries all the weight (on stationary streams, once
    the root models have fallen behind it: they start level with it, the
    members from behind) it is the vote. :meth:`predict_proba` gives each row
    the probabilities of the expert picked for it (the members' mean for
    the vote), so that :meth:`predict` is their most probable class but
    where a member's play draws another.

    **Cost.** A round costs about ``n_estimators`` member rounds (each on
    its columns). The members learn each call's rows in one pass each, in
    ``n_jobs`` threads; the combination then scores the recorded rounds.

    **Drift.** A replaced member is a new expert in its slot of the
    combination: the slot's loss goes on with the new tree's predictions,
    and the combination's bound holds against each slot's actual sequence of
    predictions (a replacement decided in a round first predicts in the
    next). The fresh tree's own local-regret guarantee starts from its first
    round.

    **Zero weights.** A row whose Poisson draw is 0 is learnt by that member
    with weight 0: it changes no regret, so the member's rounds stay aligned
    with the forest's (and it still counts for the member's thresholds). A
    member's first call starts at the round of its first weighed row.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret import LocalRegretForestClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(1000, 4))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> forest = LocalRegretForestClassifier(n_estimators=5, random_state=0)
    >>> forest = forest.fit(X, y)
    >>> forest.n_rounds_, len(forest.estimators_)
    (100, 5)
    >>> round(forest.online_error_, 3)
    0.051

    The concept is linear: the forest's root linear model (its expert
    before last) has taken the weight from the vote and the members.

    >>> forest.combination_weights_.round(3).tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.012, 0.988, 0.0]
    >>> round(forest.score(X, y), 3)
    0.944

    When the concept inverts, each member's detector sees its error rise and
    the member is replaced by a fresh tree, which learns the new concept.

    >>> forest.n_drifts_.tolist()
    [0, 0, 0, 0, 0]
    >>> forest = forest.partial_fit(X, 1 - y)
    >>> forest.n_drifts_.tolist(), forest.estimators_[0].n_samples_seen_
    ([1, 1, 1, 1, 1], 970)
    """

"""The docstring of :class:`~sklearn_localregret.LocalRegretTreeClassifier`.

It is the learner's manual (parameters, attributes, the guarantee, sampling,
prediction, threads, memory, examples), kept here so that the estimator's
module reads as code. ``_tree_classifier.py`` sets it as the class's
``__doc__``, indentation included (numpydoc, the API pages and the doctests
read it from the class).
"""

__all__ = ["TREE_CLASSIFIER_DOCSTRING"]

TREE_CLASSIFIER_DOCSTRING = """\
Online decision-tree learner minimising local external or swap regret.

    The learner plays, round after round, a decision tree drawn from a
    distribution ``pi`` over decision trees, and updates its regrets for not
    having played a *nearby* tree instead (Bowling & Zinkevich, 2012, Examples
    "Online Decision Tree Learning" and "Colored Decision Tree Learning"). Two
    trees are nearby when the second replaces one subtree of the first by a
    leaf ``c`` or by a stump ``(v, c_true, c_false)``, the online analogue of
    growing and pruning a tree top-down. Each round is ``batch_size`` rows; its
    utility is the (weighted) number of rows the played tree gets right, so
    ``Delta = batch_size`` for unit weights.

    The trees split on *threshold tests* ``x_j > t``
    (:mod:`sklearn_localregret.thresholds`). A feature whose values in the first
    round are all 0 or 1 gets the single test ``x_j > 0.5`` at once, so 0/1 data
    (one-hot categories) is the paper's setting exactly; other features get up
    to ``max_thresholds`` tests at quantiles of the stream's first rows, which
    enter as it grows (16, 64, 256 rows ...). Real-valued, sparse and pandas
    input are accepted at default parameters.

    Missing values (NaN, None, ``pandas.NA``) and categorical columns (pandas
    ``category``, string and object columns, arrays of strings) need no
    encoder. Once a column has shown a missing value each of its thresholds
    comes as two tests, ``x_j > t`` and ``x_j > t or missing``, so where
    missing rows go is learnt like any split; a categorical column gets a
    test ``x_j == c`` for each of its first ``max_categories`` categories met
    (a missing value counts as one), each entering when first met like a
    threshold (see Notes).

    * ``regret="external"``: ``(b, L, C)``-colored regret matching with the
      paper's admissible colouring: one regret per *(path, replacement)*,
      shared by every tree that contains the path. A test's ``K * K`` stump
      colours are kept as ``O(K)`` sums, so many classes cost little
      (:class:`~sklearn_localregret.engine.StumpRegretTable`).
    * ``regret="swap"``: ``(b, L)``-regret matching, one regret per edge
      ``(tree, path, replacement)``: a stronger guarantee, far more regrets.

    Parameters
    ----------
    regret : {"external", "swap"}, default="external"
        Local regret notion to minimise.
    L : int or None, default=100
        Levels of the locality graph in play (the paper's ``L``): the level of
        a tree is its number of internal nodes (1 for a leaf other than the
        root leaf ``classes_[0]``), and a move to level ``L + 1`` goes back to
        the root leaf. The paper used ``L=100`` for external regret and
        ``L=3`` for swap regret. ``None`` is infinity: no redirect, and the
        external sampler is exact.
    bias : float or None, default=None
        The paper's ``b``, subtracted from the regret of every colour (edge)
        out of the played tree each round (a short round: ``b`` times its
        share of ``batch_size``). ``None``: ``Delta / (L + 1)`` for finite
        ``L`` (``Delta``: the round's sample weight), 0 for ``L=None``.
    batch_size : int, default=5
        Rows per round (the paper used 5). A call's rows are played in
        rounds of ``batch_size``; calls of fewer rows (one row per call
        included) are short rounds that learn their rows at once but go on
        playing the tree drawn for the short rounds before them until they
        make a whole round: one tree per ``batch_size`` rows of such calls
        (a call of more rows starts its own rounds).
    binarize : float or None, default=None
        None: thresholds come from the stream (see ``max_thresholds``). A
        number ``t``: every feature gets the one test ``x_j > t`` and no other
        (binarisation at ``t``).
    max_thresholds : int, default=7
        Most tests per feature when ``binarize`` is None. A feature with few
        distinct values gets fewer; 0/1 features get one.
    refined_features : int, "auto" or None, default="auto"
        Every numeric feature gets its median as a test (at 16 rows); each
        later threshold checkpoint (64, 256, ... rows) refines at most this
        many features, those whose tests the sites draw most. "auto": 32
        on inputs of more than 64 columns, every feature on narrower ones;
        None: every feature. On wide input it keeps noise features to one
        test: a smaller model, and fewer noise splits (user guide, "Wide
        input").
    max_categories : int, default=16
        Most categories per categorical column (up to 2**20), each with its
        test ``x_j == c``: the first ones met in the stream. Later categories,
        and any unseen when predicting, pass none of the column's tests.
    warm_start : int, default=500
        A site (path) that enters the played trees for the first time starts
        with the regrets it would have had over the last ``warm_start`` rows
        learnt, had it been played then as the leaf it starts as (see Notes).
        0 (with ``discount=1``) gives the paper's algorithm, where every site
        starts at zero.
    max_depth : int or None, default=None
        If set, nodes at depth ``max_depth`` get no stump colours: played trees
        are at most that deep and the regret tables have at most one row per
        path of length ``<= max_depth``. This restricts the locality graph;
        the guarantee holds for the restricted graph.
    n_mcmc_steps : int, default=200
        External regret with finite ``L`` only: when the exact ``L = inf``
        draw exceeds level ``L``, the tree is instead drawn by this many steps
        of the uniformised regret-matching chain with the level redirect,
        started from the last played tree (approximate; see Notes).
    n_predict_trees : int or None, default=None
        External regret only. None: :meth:`pi_proba` is exact, the
        probability that a tree drawn from ``pi`` (with ``L = inf``, see
        Notes) labels the row ``c``, computed without drawing. An int: the
        fraction of that many trees, drawn with a fixed internal seed, that
        label it ``c`` (a Monte Carlo estimate, standard error up to
        ``0.5 / sqrt(n_predict_trees)``). Swap regret predicts with the exact
        distribution.
    predict_tolerance : float in [0, 1), default=0.0
        External regret with ``n_predict_trees=None`` only. 0: the exact
        walk. Else a faster walk whose every class probability is within
        ``predict_tolerance`` of the exact one, for every row: a site whose
        probability of being reached fits in what is left of the row's
        tolerance is not walked, and its reach goes to the labels it starts
        with (its subtree would spread that same reach over the classes; the
        pruned reaches add up to at most the tolerance). ``predict`` and the
        hedge's scores of the rounds use the same walk.
    random_state : int, Generator, RandomState instance or None, default=None
        Seeds the draws of the played trees.
    discount : float, "auto" or tuple of float, default=0.99
        ``lambda`` in (0, 1]: each round every regret becomes ``lambda R + r``,
        so the learner forgets old rounds, with an effective window of
        ``1 / (1 - lambda)`` rounds (see Notes). ``lambda`` is the factor of
        a round of ``batch_size`` rows: a round of ``m`` fewer rows (a call of
        fewer rows, or a call's last rows) decays by ``lambda ** (m /
        batch_size)``, so the window is ``batch_size / (1 - lambda)`` rows
        however the stream comes in calls (one row per call included).
        1 is the paper's undiscounted algorithm. The default was chosen by
        ``benchmarks/bench_drift.py`` and ``benchmarks/bench_tree_paper.py``:
        on drifting streams it recovers where 1 stays wrong, on stationary
        ones and on the paper's protocol it is no worse; on labels that
        alternate on one instance it does worse than 1, which stays at the
        best tree's 50%.
        ``"auto"`` (0.99 and 1) or a tuple of distinct discounts: forgetting
        that adapts. One learner per discount learns every round from the
        same rows, and the probabilities are theirs mixed by AdaHedge over
        their play losses on the stream, so that the plays make at most
        :attr:`discount_regret_bound_` more expected mistakes than the best
        discount's in hindsight (the user guide, "Forgetting that adapts").
        Each round costs one round per discount. The inspection methods and
        attributes (``export_text``, ``regret_table_``, ``last_tree_``, ...)
        show the learner with the largest weight.
    prediction : {"auto", "hedge", "vote", "sample"}, default="auto"
        What :meth:`predict` gives. ``"vote"``: the most probable class under
        ``pi`` (deterministic; best on stationary streams, exploitable by an
        adversary). ``"sample"``: a class drawn from ``pi``'s probabilities of
        the row, as the randomised plays predict (the guarantee's side).
        ``"hedge"``: the vote with probability :attr:`vote_weight_`, the root
        models (the root site's naive Bayes model; Gaussian naive Bayes and a
        passive-aggressive linear model of the columns) with theirs,
        else the draw: AdaHedge's weights from the experts' losses on the
        rows as predicted before their call (before their round in calls of
        over 64 rows), never much worse than the best of them
        (:attr:`hedge_regret_bound_`; user guide, "The hedged prediction").
        ``"auto"``: ``"hedge"`` with external regret, ``"vote"`` with swap
        regret (scoring its exact distribution every round costs too much).
        The root models are made at the first fit with ``"hedge"``: set later,
        it weighs the vote and the draw only. Draws are a function of the
        row, ``random_state`` and ``n_rounds_``.
        :meth:`predict_proba` is ``pi``'s (:meth:`pi_proba`) but on rows a
        root model predicts: its posterior.
    leaf_model : {"auto", "naive_bayes"} or None, default="auto"
        What a leaf may be besides a label. ``"naive_bayes"``: every node may
        also be replaced by a *model leaf*, which labels a row with a naive
        Bayes model of the test outcomes of the rows that reached its node
        while it was played (the site's own counts: no memory of its own; a
        numeric column's thresholds read as one feature, the value's bin). It
        is one more local change, whose regret is learnt like a label's, so
        the guarantee covers it (Notes); where the concept is not a small tree
        of constant labels (many classes, smooth or linear boundaries) a model
        leaf does far better than any label.
        None: leaves are labels only (the paper's graph). ``"auto"``:
        ``"naive_bayes"`` with external regret and three classes or more;
        None with two classes, and with swap regret (whose rounds do not
        compute models). Two classes: a model leaf good early can hold a
        better tree of labels (a stump's leaves are labels: it must beat the
        model alone), and labels do better on the leaderboard's binary
        tree-like concepts (mushroom, kr-vs-kp, bananas); with more classes
        models do better on every multi-class stream
        (``benchmarks/bench_model_leaves.py``).
    leaf_prediction : {"adaptive", "label"}, default="adaptive"
        How the leaves of the learnt trees predict in :meth:`predict_proba`
        and :meth:`predict`. ``"label"``: a leaf predicts its label (a model
        leaf its model's). ``"adaptive"`` (external regret): every site also
        keeps the naive Bayes model of its counts and two scores, the weight
        of the rows reaching it that this model, as it stood before each
        round, got right, and the weight its majority label got right; a
        leaf at a site whose model leads predicts the model's label for the
        row (as River's Hoeffding trees' ``"nba"`` leaves, site by site).
        Only the reading changes: the plays, their regrets and the guarantee
        on them are the same for both, and so is ``online_error_`` (the
        plays' record). :meth:`pi_proba` stays exact (the probability that
        a tree drawn from ``pi``, its leaves read so, gives the row each
        class), and the hedge of ``prediction="hedge"`` weighs the vote and a
        class drawn from these probabilities. ``"label"`` may be set on a
        fitted model; ``"adaptive"`` on one fitted with ``"label"`` is refused
        at its next :meth:`partial_fit` (it needs the scores kept from the
        first round). On the leaderboard's streams (3 seeds) it lowers the
        error on 13 of 14, by up to 0.025 (agrawal, rbf-moving); on the
        adversarial ``alternating`` it is within its interval
        (``benchmarks/bench_leaf_reads.py``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels; leaves carry indices into it (the root leaf's: 0).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features, when ``X`` had string column names.
    n_rounds_ : int
        Rounds played, a call of fewer than ``batch_size`` rows counting as one
        (short) round; the discount counts it as its rows over ``batch_size``.
    n_samples_seen_ : int
        Rows seen.
    n_online_mistakes_, online_error_ : float
        Weight of the rows the played trees got wrong, and its share of the
        rows' total weight (the online error).
    vote_weight_, model_weight_, gaussian_weight_, linear_weight_ : float
        Probability that :meth:`predict` gives the vote (1 for
        ``prediction="vote"``, 0 for ``"sample"``), the class of the root
        site's naive Bayes model, of the Gaussian model, of the linear model.
    hedge_regret_bound_ : float
        Bound on the hedged predictions' expected mistakes beyond the best of
        their experts, over the rounds learnt (sample weight; the play's loss
        counts the 10 rows of handicap it starts with).
    discounts_ : tuple of float
        The discounts learnt at, one learner each (one value unless
        ``discount`` is ``"auto"`` or a tuple).
    discount_weights_ : ndarray of shape (n_discounts,)
        Each discount's weight in the probabilities (AdaHedge over their
        play losses).
    discount_regret_bound_ : float
        Bound on the plays' expected mistakes beyond those of the best
        discount's plays, over the rounds learnt (sample weight; 0 with one
        discount).
    last_tree_ : Leaf or Split
        The tree played in the last round; a
        :class:`~sklearn_localregret.locality.decision_tree.Split` holds the
        number of its test (see ``test_features_`` and ``test_thresholds_``).
    test_features_, test_thresholds_ : ndarray of shape (n_tests,)
        Feature ``j`` and threshold ``t`` of every test ``x_j > t``, in the
        order the tests entered (for a test ``x_j == c``, the code of ``c``:
        its index in ``categories_[j]``).
    test_kinds_ : ndarray of str of shape (n_tests,)
        ``">"`` (a missing value fails), ``"> or missing"`` (a missing value
        passes) or ``"=="``, for every test.
    categories_ : list of length ``n_features_in_``
        For a categorical column, its categories in the order of their codes
        (None stands for the missing value); None for a numeric column.
    n_mcmc_draws_ : int
        Rounds whose tree came from the approximate chain sampler (external
        regret with finite ``L`` whose exact draw exceeded level ``L``).
    local_regret_ : float
        Time-averaged local colored regret (external: ``(1/T) sum_C (R_C)+``,
        which bounds the local external regret) or local swap regret (swap:
        ``(1/T) sum_i max_j R+_{i,j}`` over the played trees ``i``).
    n_nonzero_regrets_ : int
        Number of colours (edges for swap) whose (biased) regret is non-zero.
    n_sites_ : int
        Rows of the regret table: paths (external) or (tree, path) pairs (swap).
    regret_nbytes_ : int
        Bytes of regret state: ``8 (2C + 2 T K + 2 T)`` per site, for ``K``
        classes, ``C`` leaf colours (``K + 1`` with model leaves), ``T`` tests.
    regret_table_ : StumpRegretTable
        The regret table itself, for inspection (read it, never update it).

    See Also
    --------
    sklearn.tree.DecisionTreeClassifier : The offline greedy tree learner.
    river.tree.HoeffdingTreeClassifier : An online tree learner for i.i.d.
        streams.

    Notes
    -----
    **Guarantee.** With ``bias = Delta / (L + 1)`` and out-degree ``D``, after
    ``T`` rounds the expected time-averaged local colored regret is at most
    ``Delta D / (L + 1) + Delta sqrt(D |C_L|) / sqrt(T)`` and, the colouring
    being admissible, bounds the local external regret: the played trees do
    nearly as well as the trees one leaf or stump replacement away from them.
    Local swap regret obeys ``Delta / (L + 1) + Delta sqrt(D |E_L|) / sqrt(T)``,
    with no assumption on how the data are generated.

    *Tests that enter late.* A test's colours start with zero regret when it
    enters, as if its edges had always been there with zero regret; the
    regret of a colour sums only over the rounds since its test entered.
    The bound above holds for the graph of the tests available at each
    round, ``C_L`` counting the colours of every test that ever entered (the
    proof's potential never sees a colour before it has an edge).

    *Missing values and categories.* The learner decides where missing
    values go by learning, not by a rule: from the round a column first shows
    a missing value, each of its thresholds ``t`` offers two tests, ``x_j > t``
    (missing rows fail it) and ``x_j > t or missing`` (they pass it), and each
    is one more local change of the locality graph, with its own colours. The
    guarantee above therefore covers the choice of where missing values go at
    every node, as it covers the choice of the threshold; the price is a
    larger out-degree ``D`` and ``|C_L|`` (up to twice the thresholds of the
    columns with missing values). A categorical column offers one test
    ``x_j == c`` per category met (at most ``max_categories``, the missing
    value being one, so "is missing" is a test like the others there). Tests
    that enter late are covered as above. Infinities are refused; a column
    with no value yet has no test; a column keeps the type of its first
    values (anything else is an error; the model unchanged).

    *Warm start.* A site created at round ``t0`` starts from regrets ``W0``:
    the gains of its colours over the last ``warm_start`` rows that reached
    its path, as if the site had been played as its starting leaf for them.
    The proof's potential ``sum_C (Rtilde_C+)^2`` then jumps by at most
    ``sum_C (W0_C+)^2`` at creation and grows as before, and the true regret
    of a colour differs from the learnt one by ``-W0_C``, so the expected
    local colored regret is at most
    ``b T D + sqrt(|C_L| (T D (Delta + b)^2 + sum_sites |W0+|^2)) +
    sum_sites |W0-|_1``, where every ``|W0_C| <= w N`` (``N = warm_start``,
    ``w`` the largest sample weight). The extra terms are bounded per site;
    divided by ``T`` they vanish as long as new sites appear sublinearly
    (played trees settle). ``warm_start=0`` removes them.

    *Discounting.* With ``discount=lambda < 1`` every regret becomes
    ``lambda R + r`` each round (lazily: one global scale, O(1) per round), and
    the guarantee is on the discounted regret over an effective window of
    ``1 / (1 - lambda)`` rounds: averaged over that window it is at most
    ``b D + (Delta + b) sqrt(D |C|) sqrt((1 - lambda) / (1 + lambda))`` in the
    long run (:ref:`guarantee-discounted`), so after the data change the
    played trees are again nearly locally optimal within a few windows.
    ``local_regret_`` reports the discounted quantity. A round of ``m <
    batch_size`` rows decays by ``lambda ** (m / batch_size)``; the bound
    holds with each round's own factor (the user guide).

    *Model leaves.* ``leaf_model="naive_bayes"`` adds to every node one
    edge, "replace the subtree here by the model leaf", coloured by its path
    like the label leaves: the out-degree ``D`` and the colours ``C_L`` grow
    by one per node, nothing else in the bound changes. A model leaf's
    utility in a round is the weight of the rows it gets right with its model
    as it stood before the round, within ``[0, Delta]`` like any tree's, so
    the bound holds with the same ``Delta``; the models change with the
    rounds, which the guarantee allows (utilities may be chosen by an
    adaptive adversary). The played trees are then nearly as good as every
    tree one label, stump or model-leaf replacement away
    (:ref:`engine-model-leaves`).

    **Sampling.** External regret with ``L=None`` draws trees exactly from the
    stationary distribution, top-down (:ref:`engine-trees`): cost
    proportional to the size of the drawn tree. With finite ``L`` the level
    redirect couples all sites; the exact ``L = inf`` draw is used whenever it
    stays within level ``L`` (with the paper's ``L = 100`` it practically
    always does) and otherwise ``n_mcmc_steps`` steps of the uniformised chain
    with the redirect, started from the last played tree, replace it. That
    fallback is approximate, and the mixture is not exactly the stationary
    distribution with the redirect; ``n_mcmc_draws_`` counts how often it
    happened.

    **Prediction.** :meth:`predict_proba` (external regret, the default
    ``n_predict_trees=None``) follows each row down the sites of the regret
    table: a site that has existed for an exponential time of rate ``s``
    labels the row ``c`` with probability
    ``(s [start = c] + w_c + sum_v w_v H_v(s + W - w_v)) / (s + W)``, where
    ``H_v`` is the same quantity for the child on the row's branch of test
    ``v`` (:ref:`engine-predict`). It is exact for the ``L = inf``
    distribution, the one the played trees are drawn from except in the
    rounds ``n_mcmc_draws_`` counts, and costs, per row, one bisection per
    feature at each table site on its paths (a compiled walk,
    :ref:`engine-compiled`); it does not depend on any number of draws.
    ``predict_tolerance`` trades exactness for speed with a guarantee: every
    probability within the tolerance of the exact one.
    Swap regret solves its finite chain exactly each round over the trees
    reachable from the root (only the played tree's out-edges are rebuilt).

    **Threads.** ``predict``, ``predict_proba``, ``score`` and
    :meth:`representative_tree` may run in any number of threads while
    another learns: a reader waits for the round under way and sees the
    model of complete rounds, and the model learnt is the one learnt with no
    reader (``tests/test_concurrent_reads.py``). Readers take turns (one lock
    per model), and a round waits for a reader's walk. Calls of ``fit`` and
    ``partial_fit`` from several threads run one at a time.

    **Memory.** ``8 (2C + 2 T K + 2 T)`` bytes per path of a played tree
    (external) or per node of every remembered played tree (swap), for ``K``
    classes, ``C = K`` (``K + 1`` with model leaves) and ``T`` tests.

    *Swap regret on a long stream.* With ``discount=lambda < 1`` every 256
    rounds the trees none of whose regrets exceeds ``1e-6 Delta`` in absolute
    value are forgotten (``Delta``: the largest weight of a round plus the
    bias so far); a forgotten tree is an unplayed one again (warm start
    included if it is played again). A regret never exceeds
    ``M = Delta / (1 - lambda)`` (or the weight of the warm-start window, if
    larger), so a tree not played for ``W = ln(M / (1e-6 Delta)) / ln(1 /
    lambda) + 256`` rounds is gone: the table holds the trees played in the
    last ``W`` rounds, at most ``(2L + 1) W`` rows (``lambda = 0.99``,
    ``warm_start=0``: ``W`` is about 2,090 rounds), whatever the length of the
    stream, and a round's cost is bounded with it. Each regret differs from
    the exact discounted one by at most ``1e-6 Delta / (1 - lambda^256)``,
    far below the guarantee's terms. ``discount=1`` (the paper's algorithm)
    forgets nothing: memory and time per round grow with the distinct trees
    played (``benchmarks/bench_swap_growth.py``).

    *External regret on a long stream.* The same rule, site by site: every
    256 rounds of a discounted table the sites (paths) none of whose regrets
    exceeds ``1e-6 Delta`` are forgotten (the root never is), and a path
    played again enters as a new site, warm start included. A site unplayed
    for ``W`` rounds (as above) is gone, so the table holds the paths of the
    trees played in the last ``W`` rounds, whatever the length of the stream,
    each regret within ``1e-6 Delta / (1 - lambda^256)`` of the exact one. On
    a stream of 20 real features at the default 0.99 that keeps a few hundred
    to about a thousand sites where 42,000 accumulated by round 140,000.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret import LocalRegretTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(2000, 4))
    >>> y = np.where(X[:, 0] == 1, "yes", np.where(X[:, 2] == 1, "maybe", "no"))
    >>> clf = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    >>> clf.n_rounds_, round(clf.online_error_, 3)
    (400, 0.009)
    >>> clf.predict([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 1]])
    array(['yes', 'maybe', 'no'], dtype='<U5')
    >>> print(clf.export_text())  # three classes: a model leaf won
    |--- class: naive Bayes

    With label leaves only, the rule itself:

    >>> clf = LocalRegretTreeClassifier(leaf_model=None, random_state=0).fit(X, y)
    >>> round(clf.online_error_, 3)
    0.011
    >>> print(clf.export_text(feature_names=["a", "b", "c", "d"]))
    |--- a <= 0.50
    |   |--- c <= 0.50
    |   |   |--- class: no
    |   |--- c >  0.50
    |   |   |--- class: maybe
    |--- a >  0.50
    |   |--- class: yes

    Real-valued features, at default parameters:

    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = LocalRegretTreeClassifier(random_state=0).fit(X, y)
    >>> round(clf.online_error_, 3), clf.test_features_.size
    (0.121, 210)
    """

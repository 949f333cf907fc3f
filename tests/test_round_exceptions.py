"""An exception between two rounds leaves the model of the rounds before it.

A learner counts each round as soon as it is complete, so an exception raised
at the start of round ``k`` of a call (injected by a patched round method,
for every ``k`` of a short call) must leave a model equal, pickle for pickle,
to one given exactly the rows of the rounds before ``k`` -- regrets, samplers'
caches, random state and counters -- and it must learn on as that one does.
The disjunct learner's bulk path (many rounds drawn and applied together, for
external regret) is one unit for this purpose; these learners play round by
round. An exception *inside* a round (after it changed something) is not
rolled back; Ctrl-C never arrives there (tests/test_interrupts.py).
"""

import pickle

import numpy as np
import pytest

from sklearn_localregret import LocalRegretDisjunctClassifier, LocalRegretTreeClassifier

# The trees use fixed thresholds: with quantile thresholds the threshold source
# sees a round's features before the round is played (that is when tests may
# enter), and an exception inside the play leaves them seen.
LEARNERS = {
    "tree-external": lambda: LocalRegretTreeClassifier(binarize=0.5, random_state=0),
    "tree-swap": lambda: LocalRegretTreeClassifier(
        regret="swap", L=3, binarize=0.5, random_state=0
    ),
    "disjunct-swap": lambda: LocalRegretDisjunctClassifier(
        regret="swap", random_state=0
    ),
    "disjunct-finite-L": lambda: LocalRegretDisjunctClassifier(
        graph="hypercube", L=2, random_state=0, batch_size=3
    ),
}
FIRST = 20  # rows learnt before the call that fails
ROUNDS = 6  # rounds in the call that fails


class Injected(RuntimeError):
    pass


def stream(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 6))
    y = (X[:, 0] | X[:, 2]) ^ (rng.random(n) < 0.1)
    return X, y


def fail_at_round(monkeypatch, cls, k):
    # The tree's loop plays each round of its player (either regret) with
    # its own (differently typed) method.
    names = (
        ("_play_round_on",) if cls is LocalRegretTreeClassifier else ("_play_round",)
    )
    calls = []
    for name in names:
        play = getattr(cls, name)

        def play_round(self, *args, play=play):
            calls.append(None)
            if len(calls) == k + 1:
                raise Injected(f"round {k}")
            return play(self, *args)

        monkeypatch.setattr(cls, name, play_round)


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("k", range(ROUNDS))
def test_exception_at_round_k_leaves_the_first_k_rounds(name, k, monkeypatch):
    make = LEARNERS[name]
    batch = make().batch_size
    X, y = stream(FIRST + ROUNDS * batch + 50)
    model = make().partial_fit(X[:FIRST], y[:FIRST], classes=[0, 1])
    call = slice(FIRST, FIRST + ROUNDS * batch)
    with monkeypatch.context() as patch:
        fail_at_round(patch, type(model), k)
        with pytest.raises(Injected):
            model.partial_fit(X[call], y[call])
    learnt = FIRST + k * batch
    reference = make().partial_fit(X[:FIRST], y[:FIRST], classes=[0, 1])
    if k:
        reference.partial_fit(X[FIRST:learnt], y[FIRST:learnt])
    assert model.n_samples_seen_ == learnt
    assert model.n_rounds_ == reference.n_rounds_
    assert pickle.dumps(model) == pickle.dumps(reference)
    model.partial_fit(X[learnt:], y[learnt:])
    reference.partial_fit(X[learnt:], y[learnt:])
    assert pickle.dumps(model) == pickle.dumps(reference)

"""Ctrl-C inside partial_fit: the model is that of the rows learnt before it.

SIGINT is raised deterministically from inside learning (a patched block of
rounds raises it, then plays on), never by a timer. The call must stop with
``KeyboardInterrupt`` once the round it came in is complete (a bulk unit of
the disjunct learner's exact path counts as one round), and leave a model
byte-identical (pickle) to one given exactly the rows of the completed rounds
in one call, counters and caches included.
"""

import pickle
import signal

import numpy as np
import pytest

import sklearn_localregret._base.rounds as rounds
from sklearn_localregret import LocalRegretDisjunctClassifier, LocalRegretTreeClassifier

BLOCK = 60  # rows per block of rounds in these tests (the default is 4096)

LEARNERS = {
    "tree-external": lambda: LocalRegretTreeClassifier(random_state=0),
    "tree-swap": lambda: LocalRegretTreeClassifier(regret="swap", L=3, random_state=0),
    # The default hedges, which keeps multi-round calls off the bulk path:
    # one round at a time.
    "disjunct-external": lambda: LocalRegretDisjunctClassifier(random_state=0),
    "disjunct-swap": lambda: LocalRegretDisjunctClassifier(
        regret="swap", random_state=0
    ),
    # The vote: calls of many rounds take the bulk path.
    "disjunct-bulk": lambda: LocalRegretDisjunctClassifier(
        prediction="vote", random_state=0
    ),
}


def stream(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, 6))
    y = (X[:, 0] | X[:, 2]) ^ (rng.random(n) < 0.1)
    return X, y


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(rounds, "DENSE_CHUNK_ROWS", BLOCK)


def interrupt_in_block(monkeypatch, model, block):
    """Make the ``block``-th block of rounds (0-based) raise SIGINT, then play."""
    play = type(model)._play_rounds
    calls = []

    def play_rounds(self, X, y, weight):
        calls.append(len(calls))
        if len(calls) - 1 == block:
            signal.raise_signal(signal.SIGINT)
        return play(self, X, y, weight)

    monkeypatch.setattr(type(model), "_play_rounds", play_rounds)


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("block", [0, 2])
def test_interrupted_call_equals_the_rows_learnt(
    name, block, small_blocks, monkeypatch
):
    X, y = stream()
    first = 10
    interrupted = LEARNERS[name]().partial_fit(X[:first], y[:first], classes=[0, 1])
    with monkeypatch.context() as patch:  # blocks stay small after it
        interrupt_in_block(patch, interrupted, block)
        with pytest.raises(KeyboardInterrupt):
            interrupted.partial_fit(X[first:], y[first:])
    # The first round of the block (the disjunct learner's bulk path: its
    # unit, the whole block here) completes, then the interrupt acts.
    unit = BLOCK if name == "disjunct-bulk" else interrupted.batch_size
    learnt = first + block * BLOCK + unit
    assert interrupted.n_samples_seen_ == learnt
    reference = LEARNERS[name]().partial_fit(X[:first], y[:first], classes=[0, 1])
    reference.partial_fit(X[first:learnt], y[first:learnt])
    assert pickle.dumps(interrupted) == pickle.dumps(reference)
    np.testing.assert_array_equal(
        interrupted.predict_proba(X), reference.predict_proba(X)
    )
    # And it learns on as the reference does.
    interrupted.partial_fit(X[learnt:], y[learnt:])
    reference.partial_fit(X[learnt:], y[learnt:])
    assert pickle.dumps(interrupted) == pickle.dumps(reference)


def test_the_bulk_path_stops_after_one_unit(small_blocks, monkeypatch):
    import sklearn_localregret._disjunct_base as disjunct

    monkeypatch.setattr(disjunct, "_BULK_ROUNDS", 7)
    monkeypatch.setattr(disjunct, "_BULK_CELLS", 0)  # units of 7 rounds
    X, y = stream()
    model = LEARNERS["disjunct-bulk"]().partial_fit(X[:10], y[:10], classes=[0, 1])
    interrupt_in_block(monkeypatch, model, 1)
    with pytest.raises(KeyboardInterrupt):
        model.partial_fit(X[10:], y[10:])
    assert model.n_samples_seen_ == 10 + BLOCK + 7


def test_an_ignored_sigint_stays_ignored(small_blocks, monkeypatch):
    # A process that ignores SIGINT (the experiments' worker processes) must
    # not get a KeyboardInterrupt from the deferral: the call completes.
    X, y = stream()
    model = LocalRegretDisjunctClassifier(random_state=0)
    interrupt_in_block(monkeypatch, model, 1)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        model.partial_fit(X, y, classes=[0, 1])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert model.n_samples_seen_ == len(y)


def test_a_custom_handler_is_called_after_the_round(small_blocks, monkeypatch):
    # A handler that does not raise is called once the round is complete (the
    # first of the block: one row), and learning goes on; the handler in
    # place before the call is back after it.
    X, y = stream()
    model = LEARNERS["disjunct-external"]()  # one round at a time
    interrupt_in_block(monkeypatch, model, 1)
    seen = []

    def handler(signum, frame):
        seen.append(model.n_samples_seen_)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        model.partial_fit(X, y, classes=[0, 1])
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [BLOCK + 1]
    assert model.n_samples_seen_ == len(y)


def test_interrupted_fit_keeps_the_previous_model(monkeypatch):
    X, y = stream()
    model = LocalRegretTreeClassifier(random_state=0).fit(X[:100], y[:100])
    before = pickle.dumps(model)
    interrupt_in_block(monkeypatch, model, 0)
    with pytest.raises(KeyboardInterrupt):
        model.fit(X, y)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("regret", ["external", "swap"])
def test_interrupted_maxsat_run_equals_the_clauses_played(regret, monkeypatch):
    from sklearn_localregret import OnlineMaxSAT

    rng = np.random.default_rng(1)
    clauses = [
        [
            int(v) * s
            for v, s in zip(
                rng.choice(np.arange(1, 6), 3, False), rng.choice([-1, 1], 3)
            )
        ]
        for _ in range(40)
    ]
    solver = OnlineMaxSAT(5, regret=regret, random_state=0)
    play, calls = OnlineMaxSAT._play, []

    def play_round(self, score, weight):
        calls.append(None)
        if len(calls) == 7:
            signal.raise_signal(signal.SIGINT)
        return play(self, score, weight)

    with monkeypatch.context() as patch:
        patch.setattr(OnlineMaxSAT, "_play", play_round)
        with pytest.raises(KeyboardInterrupt):
            solver.run(clauses)
    assert solver.n_rounds_ == 7  # the round it came in is complete
    reference = OnlineMaxSAT(5, regret=regret, random_state=0)
    reference.run(clauses[:7])
    assert pickle.dumps(solver) == pickle.dumps(reference)

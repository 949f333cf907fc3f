"""The ``solve`` search: WalkSAT first, then passes of the online learner.

:func:`solve_formula` searches an assignment of a
:class:`~sklearn_localregret.WeightedFormula` with one WalkSAT walk (as long as
the flips or the time allow) and, if the flips are spent first, with passes of
:class:`~sklearn_localregret.OnlineMaxSAT` over the clauses; it keeps the best
assignment seen (fewest violated hard clauses, then least soft cost) and says
whether unit propagation proves it optimal or the hard clauses unsatisfiable
(:class:`MaxSATAnswer`). SIGTERM and Ctrl-C stop it with that best answer. The
command line that reads a file and prints the answer is
:mod:`sklearn_localregret.maxsat.command`.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from dataclasses import dataclass

import numpy as np

from .._checks import check_fits_in_memory
from .._weights import MAX_WEIGHT
from .clause_matrix import clause_matrix, satisfied
from .formula import WeightedFormula
from .online import OnlineMaxSAT
from .search_checks import check_search
from .walksat import FLIP_BLOCK, Walk, WalkSATClauses

__all__ = ["MaxSATAnswer", "format_number", "solve_formula"]

# Clauses per partial_fit call and flips between two checks of the clock: a few
# milliseconds of work each on the benchmark's instances. The flips are
# walksat's block: the same random numbers, flip for flip.
_ROUNDS_PER_CHECK = 256
_FLIPS_PER_CHECK = FLIP_BLOCK


@dataclass(frozen=True)
class MaxSATAnswer:
    """What :func:`solve_formula` found.

    Attributes
    ----------
    status : {"OPTIMUM FOUND", "SATISFIABLE", "UNSATISFIABLE", "UNKNOWN"}
        The ``s`` line: ``"OPTIMUM FOUND"`` when the cost is proven optimal (0,
        or the weight of soft clauses that unit propagation on the hard clauses
        falsifies), ``"SATISFIABLE"`` when every hard clause is satisfied,
        ``"UNSATISFIABLE"`` when unit propagation refutes the hard clauses,
        ``"UNKNOWN"`` otherwise.
    assignment : ndarray of bool of shape (n_vars,) or None
        The best assignment found (fewest violated hard clauses, then least
        soft cost); variables in no clause are false. None when unsatisfiable.
    cost : float or None
        Total weight of the soft clauses ``assignment`` falsifies.
    n_hard_violated : int or None
        Hard clauses ``assignment`` falsifies; 0 for a solution.
    lower_bound : float
        Soft weight falsified by every assignment that satisfies the hard
        clauses, as far as unit propagation shows.
    n_rounds, n_flips : int
        Rounds the learner played and WalkSAT flips made.
    interrupted : bool
        The search was stopped by a signal (Ctrl-C, SIGTERM).
    """

    status: str
    assignment: np.ndarray | None
    cost: float | None
    n_hard_violated: int | None
    lower_bound: float
    n_rounds: int
    n_flips: int
    interrupted: bool = False


def solve_formula(
    formula: WeightedFormula,
    *,
    passes: int = 10,
    flips: int | None = 100_000,
    regret: str = "external",
    noise: float = 0.5,
    seed: int = 0,
    deadline: float | None = None,
    on_cost=None,
    on_progress=None,
) -> MaxSATAnswer:
    """WalkSAT first, then passes of :class:`~sklearn_localregret.OnlineMaxSAT`.

    One WalkSAT walk starts from a random assignment and runs on for ``flips``
    flips (the walk of :func:`~sklearn_localregret.baselines.walksat` with
    ``random_state=seed``, flip for flip, on a formula whose every variable
    occurs in a clause), hard clauses weighing the formula's
    ``top`` (more than all soft clauses together), so that it repairs them
    first and never trades one for soft weight. If the flips are spent and time
    is left, the learner plays ``passes`` passes over the clauses, each in a
    fresh random order, one round per clause, and its most probable assignment
    is scored after each. The search stops at cost 0 (or a cost unit
    propagation proves optimal), at the deadline or when both budgets are
    spent; the best assignment seen is the answer. The learner and WalkSAT see
    only the variables that occur in a clause.

    WalkSAT comes first because the learner's passes before it made the
    answer worse at equal time on large instances (issue 31), and at equal
    time the walk left alone is never beaten by the learner's help on the
    benchmark's instances (``benchmarks/bench_solve.py --compare``): a pass
    of the learner costs time in the number of clauses times the number of
    variables, a compiled flip under a microsecond.

    Parameters
    ----------
    formula : WeightedFormula
    passes : int, default=10
        Passes of the learner over the clauses once the flips are spent.
    flips : int or None, default=100_000
        WalkSAT flips, at most; None for no limit (the walk then runs to cost
        0 or the deadline, and never ends without either).
    regret : {"external", "swap"}, default="external"
        The learner's regret.
    noise : float, default=0.5
        WalkSAT's random-walk probability.
    seed : int, default=0
        Seeds the clause orders, the learner and WalkSAT.
    deadline : float or None, default=None
        A ``time.monotonic()`` value at which the search stops.
    on_cost : callable or None, default=None
        Called with the soft cost each time a better solution (every hard
        clause satisfied) is found: the ``o`` lines.
    on_progress : callable or None, default=None
        Called with a line of text now and then during the search.

    Returns
    -------
    MaxSATAnswer

    Examples
    --------
    >>> f = WeightedFormula([[1, 2], [-1], [-2], [2, 3]], weights=[0, 3, 1, 1],
    ...                     hard=[1, 0, 0, 0])
    >>> answer = solve_formula(f)
    >>> answer.status, answer.cost, answer.assignment
    ('SATISFIABLE', 1.0, array([False,  True,  True]))
    """
    noise = check_search(formula, passes, flips, noise, deadline)
    # The answer's assignment holds every variable, used or not: refused
    # before the search rather than after it.
    check_fits_in_memory(formula.n_vars, f"an assignment of {formula.n_vars} variables")
    forced = _unit_propagate([c for c, h in zip(formula, formula.hard) if h])
    if forced is None:
        return MaxSATAnswer("UNSATISFIABLE", None, None, None, 0.0, 0, 0)
    lower_bound = _forced_cost(formula, forced)
    compact, used = _compact(formula)
    # Scored first: all variables false, the learner's root.
    state = _SearchState(
        compact,
        np.where(formula.hard, 0.0, formula.weights),
        lower_bound,
        on_cost,
        np.zeros(compact.n_vars, dtype=bool),
    )
    rng = np.random.default_rng(seed)
    interrupted = False
    try:
        with _signals_interrupt():
            if len(compact):
                search = _Schedule(compact, state, rng, deadline, on_progress)
                search.run(passes, flips, regret, noise)
    except KeyboardInterrupt:
        interrupted = True
    assignment = np.zeros(formula.n_vars, dtype=bool)
    assignment[used] = state.assignment
    return MaxSATAnswer(
        state.status(),
        assignment,
        state.cost,
        state.n_hard_violated,
        lower_bound,
        state.n_rounds,
        state.n_flips,
        interrupted,
    )


class _SearchState:
    """The best assignment so far (fewest violated hard clauses, then least
    cost) and the work done: what an interrupted search still answers with."""

    def __init__(
        self,
        formula: WeightedFormula,
        soft_weights: np.ndarray,
        lower_bound: float,
        on_cost,
        start: np.ndarray,
    ):
        # ``formula`` may be rescaled; costs are in ``soft_weights``, the file's.
        self.matrix = clause_matrix(formula)
        self.hard, self.weights = formula.hard, soft_weights
        self.lower_bound, self.on_cost = lower_bound, on_cost
        self.n_rounds = self.n_flips = 0
        self.assignment = start.copy()
        self.n_hard_violated, self.cost = self._score(start)
        self._found()

    def _score(self, a: np.ndarray) -> tuple[int, float]:
        """Hard clauses ``a`` falsifies, and the soft weight it falsifies."""
        falsified = ~satisfied(a, self.matrix)
        return (
            int(np.count_nonzero(falsified & self.hard)),
            float(self.weights[falsified & ~self.hard].sum()),
        )

    def _found(self) -> None:
        if self.n_hard_violated == 0 and self.on_cost is not None:
            self.on_cost(self.cost)

    def consider(self, a: np.ndarray) -> None:
        n_hard, cost = self._score(a)
        if (n_hard, cost) < (self.n_hard_violated, self.cost):
            self.assignment, self.n_hard_violated, self.cost = a.copy(), n_hard, cost
            self._found()

    @property
    def proven(self) -> bool:
        return self.n_hard_violated == 0 and self.cost <= self.lower_bound

    def describe(self) -> str:
        if self.n_hard_violated:
            return f"best violates {self.n_hard_violated} hard clauses"
        return f"best cost {format_number(self.cost)}"

    def status(self) -> str:
        if self.n_hard_violated:
            return "UNKNOWN"
        return "OPTIMUM FOUND" if self.proven else "SATISFIABLE"


class _Schedule:
    """Who works when: one WalkSAT walk first, then the learner's passes."""

    def __init__(
        self,
        formula: WeightedFormula,
        state: _SearchState,
        rng: np.random.Generator,
        deadline: float | None,
        on_progress,
    ) -> None:
        self.formula, self.state, self.rng = formula, state, rng
        self.deadline, self.on_progress = deadline, on_progress
        self.learner: OnlineMaxSAT | None = None
        self.passes_done = 0

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def run(self, passes: int, flips: int | None, regret: str, noise: float) -> None:
        state, formula = self.state, self.formula
        # WalkSAT never picks or breaks a clause of weight 0: leave them out.
        keep = np.flatnonzero(formula.weights > 0)
        limit = np.inf if flips is None else flips
        shown = "" if flips is None else f"/{flips}"
        if limit > 0 and len(keep):
            kept = formula
            if len(keep) < len(formula):
                kept = WeightedFormula(
                    [formula.clauses[k] for k in keep],
                    n_vars=formula.n_vars,
                    weights=formula.weights[keep],
                )
            search = WalkSATClauses(kept.clauses, kept.weights, kept.n_vars)
            # One walk, never restarted (restarting from its best every 2,000
            # flips ended worse: Walk's notes), with the start and the flips
            # of walksat(random_state=seed): with the same time, solve is
            # WalkSAT alone until the learner plays.
            start = self.rng.random(formula.n_vars) < 0.5
            walk = Walk(search, start, noise, self.rng)
            try:
                self.walk(walk, limit, shown)
            finally:  # the walk's best, even when interrupted
                state.consider(walk.best_assignment())
        while self.passes_done < passes and not state.proven:
            if self.out_of_time():
                return
            self.one_pass(passes, regret)

    def walk(self, walk: Walk, limit: float, shown: str) -> None:
        state, seen = self.state, walk.best_cost
        scored, interval = time.monotonic(), 0.1
        while state.n_flips < limit and not state.proven:
            if self.out_of_time():
                return
            made = walk.step(int(min(_FLIPS_PER_CHECK, limit - state.n_flips)))
            state.n_flips += made
            # Scoring an assignment reads every clause (7 ms for 50,000): at
            # most once per 50 scorings' time (or at cost 0), so that the walk
            # keeps 98% of it; the last best is scored when the walk ends.
            now = time.monotonic()
            if walk.best_cost < seen and (
                walk.best_cost == 0 or now - scored > interval
            ):
                seen = walk.best_cost
                state.consider(walk.best_assignment())
                scored = time.monotonic()
                interval = max(0.1, 50 * (scored - now))
            self.say(f"walksat {state.n_flips}{shown} flips: {state.describe()}")
            if made == 0:  # nothing left unsatisfied
                return

    def one_pass(self, passes: int, regret: str) -> None:
        """A pass of the learner over the clauses; its best assignment scored."""
        formula, state = self.formula, self.state
        if self.learner is None:
            self.learner = OnlineMaxSAT(
                formula.n_vars,
                regret=regret,
                random_state=int(self.rng.integers(2**31 - 1)),
            )
        clauses, weights = formula.clauses, np.asarray(formula.weights)
        order = self.rng.permutation(len(clauses))
        self.passes_done += 1
        for lo in range(0, len(order), _ROUNDS_PER_CHECK):
            if self.out_of_time():
                break
            chunk = order[lo : lo + _ROUNDS_PER_CHECK]
            self.learner.partial_fit(
                [clauses[k] for k in chunk], weights=weights[chunk]
            )
            state.n_rounds = self.learner.n_rounds_
            self.say(
                f"pass {self.passes_done}/{passes}, {lo + len(chunk)}/"
                f"{len(order)} clauses: {state.describe()}"
            )
        state.consider(self.learner.best_assignment())

    def say(self, text: str) -> None:
        if self.on_progress is not None:
            self.on_progress(text)


def _compact(formula: WeightedFormula) -> tuple[WeightedFormula, np.ndarray]:
    """The formula over the variables that occur, and their 0-based indices.

    The soft weights are divided by a power of two when their total would make
    the hard clauses' ``top`` heavier than :data:`~._weights.MAX_WEIGHT`, the
    most a clause may weigh in the learner: an exact rescaling (barring
    underflow) that leaves every comparison of costs as it was.
    """
    lengths = np.fromiter(map(len, formula), dtype=np.int64, count=len(formula))
    lits = np.fromiter(
        (x for c in formula for x in c), dtype=np.int64, count=int(lengths.sum())
    )
    used, index = np.unique(np.abs(lits), return_inverse=True)
    soft = np.where(formula.hard, 0.0, formula.weights)
    total = float(soft.sum())
    rescale = bool(formula.hard.any() and total >= MAX_WEIGHT / 2)
    if len(used) == formula.n_vars and not rescale:
        return formula, used - 1  # every variable used: no second validation
    renamed = (np.sign(lits) * (index + 1)).tolist()
    ends = np.cumsum(lengths).tolist()
    clauses = [tuple(renamed[e - k : e]) for e, k in zip(ends, lengths.tolist())]
    if rescale:
        soft = np.ldexp(soft, -math.frexp(total / (MAX_WEIGHT / 2))[1])
    return (
        WeightedFormula(clauses, n_vars=len(used), weights=soft, hard=formula.hard),
        used - 1,
    )


def _unit_propagate(hard_clauses) -> dict[int, bool] | None:
    """Literals the hard clauses force by unit propagation; None on a conflict.

    Returns the forced values as ``{variable: value}`` (1-based variables).
    """
    clauses = [set(c) for c in hard_clauses]
    clauses = [c for c in clauses if not any(-x in c for x in c)]  # tautologies
    occurs: dict[int, list[int]] = {}
    for i, c in enumerate(clauses):
        for x in c:
            occurs.setdefault(x, []).append(i)
    open_count = [len(c) for c in clauses]  # literals not yet false
    done = [False] * len(clauses)  # satisfied
    value: dict[int, bool] = {}
    queue = [next(iter(c)) for c in clauses if len(c) == 1]
    while queue:
        lit = queue.pop()
        var, truth = abs(lit), lit > 0
        if var in value:
            if value[var] != truth:
                return None
            continue
        value[var] = truth
        for i in occurs.get(lit, ()):
            done[i] = True
        for i in occurs.get(-lit, ()):
            if done[i]:
                continue
            open_count[i] -= 1
            if open_count[i] == 0:
                return None
            if open_count[i] == 1:
                queue.extend(x for x in clauses[i] if abs(x) not in value)
    return value


def _forced_cost(formula: WeightedFormula, forced: dict[int, bool]) -> float:
    """Soft weight falsified by the forced literals alone: a lower bound."""
    if not forced:
        return 0.0
    cost = 0.0
    for c, w, h in zip(formula, formula.weights, formula.hard):
        if not h and all(forced.get(abs(x)) == (x < 0) for x in c):
            cost += float(w)
    return cost


class _Interrupted(KeyboardInterrupt):
    """SIGTERM, as the MaxSAT Evaluation sends at the time limit."""


class _signals_interrupt:
    """Within the block, SIGTERM raises like Ctrl-C (main thread only)."""

    def __enter__(self):
        self.old = None
        if threading.current_thread() is threading.main_thread():
            self.old = signal.signal(signal.SIGTERM, self._raise)
        return self

    @staticmethod
    def _raise(signum, frame):
        raise _Interrupted

    def __exit__(self, *exc):
        if self.old is not None:
            signal.signal(signal.SIGTERM, self.old)
        return False


def format_number(x: float) -> str:
    """A cost as the ``o`` lines print it: ``3`` for 3.0, ``2.5`` for 2.5."""
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)

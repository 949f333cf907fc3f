"""Online (weighted) Max-SAT with local regret (paper, Example "Online Max-3SAT")."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._checks import check_fits_in_memory, check_positive_int
from .._interrupts import deferred_interrupt
from .._loaded_check import ChecksWhenLoaded
from .._random import check_generator
from ..engine.bias import paper_bias
from ..engine.discount_clock import check_discount
from ..locality.hypercube import HypercubeColoring
from ..locality.hypercube_swap import HypercubeSwapRegrets
from ..merging import merge_into
from .clause_matrix import ClauseMatrix
from .reading import playable_formula, split_weighted
from .rounds import formula_rounds, one_clause, round_score

__all__ = ["OnlineMaxSAT"]

_BYTES_PER_VARIABLE = 200  # the peak a variable costs (~180 measured)


class OnlineMaxSAT(ChecksWhenLoaded):
    """Online weighted Max-SAT solver minimising local regret on the hypercube.

    Each round the solver commits to a truth assignment of ``n_vars`` variables
    drawn from its distribution ``pi^t``, then sees the round's (weighted)
    clauses and gains the weight they satisfy. Its regrets are for not having
    flipped single variables (the hypercube locality graph of the paper's
    Example "Online Max-3SAT"): it is an online counterpart of local search such
    as WalkSAT, with a guarantee against any sequence of clauses.

    Clauses use the DIMACS convention: literal ``+(i + 1)`` is variable ``i``,
    ``-(i + 1)`` its negation; any width, weighted or not.

    Parameters
    ----------
    n_vars : int
        Number of variables.
    regret : {"external", "swap"}, default="external"
        ``"external"``: colored regret matching with the admissible ``2n``
        colouring (one regret for "set variable k true", one for "set it
        false"). ``"swap"``: a regret per edge (local swap regret), solved
        exactly over the assignments played so far; far more regrets to keep.
    L : int or None, default=None
        Maximum level (number of true variables) of a played assignment; a move
        beyond it restarts at the all-false assignment. None means infinity,
        the paper's setting.
    bias : float or None, default=None
        The bias ``b`` of the update. None means ``Delta / (L + 1)`` for finite
        ``L``, ``Delta`` being the round's total clause weight, and 0 for
        ``L=None``.
    random_state : int, Generator, RandomState instance or None, default=None
        Seeds the drawn assignments.
    n_mcmc_steps : int, default=200
        Steps of the uniformised chain per draw when ``regret="external"`` and
        ``L < n_vars`` (an approximate sampler; exact product draws otherwise).
    discount : float, default=1.0
        ``lambda`` in (0, 1]: each round every regret becomes ``lambda R + r``,
        so clauses seen long ago weigh less (for clause streams that change;
        :ref:`guarantee-discounted`). 1 is the paper's undiscounted algorithm.
        With ``regret="swap"`` a discount also bounds the state on a long
        stream: assignments no longer played are forgotten once their regrets
        have decayed to nothing (:ref:`swap on a long stream <swap-long-streams>`).

    Attributes
    ----------
    n_rounds_ : int
        Rounds played.
    satisfied_weight_ : float
        Total clause weight satisfied by the played assignments.
    total_weight_ : float
        Total clause weight seen.
    probabilities_ : ndarray of shape (n_vars,)
        ``P(variable i is true)`` under the current ``pi``.
    most_probable_assignment_ : ndarray of bool of shape (n_vars,)
        See :meth:`best_assignment`.
    colored_regret_ : float
        Time-averaged local colored regret (every edge is a colour for
        ``"swap"``; discounted, over the effective rounds).
    swap_regret_ : float
        Time-averaged local swap regret (``regret="swap"`` only).
    n_nonzero_regrets_ : int
        Number of colours (edges for ``"swap"``) with a non-zero regret.
    n_regret_rows_ : int
        Rows of the regret table: one per variable (``"external"``) or one
        per remembered played assignment (``"swap"``).
    regret_table_ : RegretTable
        The regret table itself, for inspection (read it, never update it):
        row ``i`` column ``x`` is "set variable ``i + 1`` to ``x``", or one
        row per remembered played assignment (``"swap"``).

    See Also
    --------
    sklearn_localregret.baselines.walksat : Offline WalkSAT on the whole formula.

    Notes
    -----
    With ``regret="external"``, ``L=None`` and ``b=0`` the variables are
    independent under ``pi``: variable ``k`` is true with probability
    ``R+[k, true] / (R+[k, true] + R+[k, false])`` and one round costs
    ``O(n_vars + literals)``. The colouring is admissible, so the local
    external regret is at most the local colored regret divided by ``n_vars``
    (paper, Theorem on colored regret).

    Examples
    --------
    >>> from sklearn_localregret import OnlineMaxSAT
    >>> solver = OnlineMaxSAT(3, random_state=0)
    >>> solver.assignment()
    array([False, False, False])
    >>> solver.observe([1, -2])  # x1 or not x2: satisfied by all-false
    1.0
    >>> solver.observe([[2, 3], [1]])  # both unsatisfied
    0.0
    >>> solver.probabilities_
    array([1., 0., 1.])
    >>> weights = solver.run([[1], [-2], [3]] * 5)
    >>> solver.best_assignment()
    array([ True, False,  True])
    """

    def __init__(
        self,
        n_vars,
        regret="external",
        *,
        L=None,
        bias=None,
        random_state=None,
        n_mcmc_steps=200,
        discount=1.0,
    ):
        n_vars = check_positive_int(n_vars, "n_vars")
        check_fits_in_memory(_BYTES_PER_VARIABLE * n_vars, f"OnlineMaxSAT({n_vars})")
        if regret not in ("external", "swap"):
            raise ValueError(f"regret must be 'external' or 'swap', got {regret!r}.")
        if L is not None and (
            not isinstance(L, Integral) or isinstance(L, bool) or L < 0
        ):
            raise ValueError(f"L must be None or a non-negative integer, got {L!r}.")
        if bias is not None and (
            not isinstance(bias, Real)
            or isinstance(bias, bool)
            or not 0 <= bias < np.inf
        ):
            raise ValueError(
                f"bias must be None or a finite number >= 0, got {bias!r}."
            )
        n_mcmc_steps = check_positive_int(n_mcmc_steps, "n_mcmc_steps")
        discount = check_discount(discount)
        self.n_vars = int(n_vars)
        self.regret = regret
        self.L = L
        self.bias = bias
        self.random_state = random_state
        self.n_mcmc_steps = int(n_mcmc_steps)
        self.discount = float(discount)
        self._rng = check_generator(random_state)
        if regret == "swap":
            self._graph = HypercubeSwapRegrets(self.n_vars, L, self.discount)
        else:
            self._graph = HypercubeColoring(
                self.n_vars, L, self.n_mcmc_steps, self.discount
            )
        self._estimate_seed = int(self._rng.integers(2**31 - 1))
        self._pending = None
        self.n_rounds_ = 0
        self.satisfied_weight_ = 0.0
        self.total_weight_ = 0.0

    def __repr__(self) -> str:
        discount = "" if self.discount == 1.0 else f", discount={self.discount!r}"
        return (
            f"OnlineMaxSAT(n_vars={self.n_vars}, regret={self.regret!r}, "
            f"L={self.L!r}, bias={self.bias!r}{discount})"
        )

    # -- merging --------------------------------------------------------------
    def merge(self, other: OnlineMaxSAT) -> OnlineMaxSAT:
        """Absorb the state of ``other``, learnt on a disjoint stream of clauses.

        Afterwards this learner is the learner of both streams' rounds: its
        regrets (per variable, or per played assignment for swap regret) are
        the sums of the two, and so are ``n_rounds_``, ``satisfied_weight_``
        and ``total_weight_``; exact (one learner given both streams' rounds
        with the same plays). With ``discount < 1`` each side's regrets enter
        as discounted at its own last round. An assignment drawn and not yet
        observed is dropped (the next one is drawn from the merged ``pi``).

        Parameters
        ----------
        other : OnlineMaxSAT
            A learner with the same ``n_vars``, ``regret``, ``L``, ``bias``,
            ``n_mcmc_steps`` and ``discount``; it is not changed.

        Returns
        -------
        self : OnlineMaxSAT

        Raises
        ------
        ValueError
            If a parameter differs; this learner is then unchanged.

        Examples
        --------
        >>> a, b = OnlineMaxSAT(3, random_state=0), OnlineMaxSAT(3, random_state=1)
        >>> _ = a.partial_fit([(1, 2), (-3,)] * 20)
        >>> _ = b.partial_fit([(2,), (1, -3)] * 30)
        >>> a.merge(b).n_rounds_
        100
        """
        return merge_into(self, other)

    # -- playing --------------------------------------------------------------
    def assignment(self) -> np.ndarray:
        """The assignment played this round, drawn from ``pi`` on first request.

        Repeated calls before :meth:`observe` return the same assignment: it is
        the one the next observation scores and updates.

        Returns
        -------
        ndarray of bool of shape (n_vars,)
        """
        self._check_loaded()
        if self._pending is None:
            self._pending = self._graph.sample(self._rng)
        return self._pending.astype(bool)

    def observe(self, clauses, weights=None) -> float:
        """Score the played assignment on this round's clauses and learn.

        Draws the assignment first if :meth:`assignment` was not called.

        Parameters
        ----------
        clauses : clause or sequence of clauses
            DIMACS literals, e.g. ``[1, -3]`` or ``[[1, -3], [2]]``; a PySAT
            ``CNF``/``WCNF`` is accepted too. Literals may be numpy integers or
            whole floats; fractional floats and mappings raise.
        weights : array-like of shape (n_clauses,), default=None
            Clause weights (non-negative; 1 when None).

        Returns
        -------
        float
            The weight of the round's clauses that the assignment satisfied.

        Raises
        ------
        ValueError, TypeError
            Invalid clauses or weights (literal 0, beyond ``n_vars``, not an
            integer, empty clause, negative weight). The solver is unchanged.
        """
        one = one_clause(clauses, self.n_vars, weights)
        if one is not None:
            score, weight = one.score, one.weight
        else:
            formula = playable_formula(clauses, self.n_vars, weights)
            matrix = ClauseMatrix(formula.clauses, self.n_vars, formula.weights)
            score, weight = round_score(matrix, 0, len(matrix))
        with deferred_interrupt():  # the round is complete or not started
            return self._play(score, weight)

    def partial_fit(self, clauses, weights=None, batch_size=1) -> OnlineMaxSAT:
        """Play one round per ``batch_size`` clauses, in order.

        Parameters
        ----------
        clauses : sequence of clauses, or PySAT CNF/WCNF
        weights : array-like of shape (n_clauses,), default=None
        batch_size : int, default=1
            Clauses per round (the last round may have fewer).

        Returns
        -------
        self : OnlineMaxSAT

        Raises
        ------
        ValueError, TypeError
            Invalid clauses, weights or batch size; then no round is played.
        """
        batch_size = check_positive_int(batch_size, "batch_size")
        self._play_all(playable_formula(clauses, self.n_vars, weights), batch_size)
        return self

    def run(self, stream) -> np.ndarray:
        """Play one round per item of ``stream`` and return what each satisfied.

        Parameters
        ----------
        stream : iterable
            Items are clauses (``[1, -2]``, or a lone literal ``3``) or
            ``(clause, weight)`` pairs: a tuple or list of two is a pair when its
            first element is a clause, so ``(3, -4)`` and ``[1.0, 2.0]`` are
            clauses of two literals. Clauses are validated as by
            :meth:`observe` (whole floats are literals, fractional floats and
            mappings are errors). The stream is read and validated completely
            before the first round.

        Returns
        -------
        ndarray of shape (n_items,)
            The satisfied weight of every round.
        """
        clauses, weights = split_weighted(stream)
        if not clauses:
            return np.zeros(0)
        return self._play_all(playable_formula(clauses, self.n_vars, weights), 1)

    def _play_all(self, formula, batch_size: int) -> np.ndarray:
        # Ctrl-C acts between rounds only (see _interrupts): each round and
        # its counters are complete or not started.
        satisfied = []
        with deferred_interrupt() as interrupt:
            for score, weight in formula_rounds(formula, batch_size):
                satisfied.append(self._play(score, weight))
                interrupt.deliver()
        return np.array(satisfied)

    def _play(self, score, weight: float) -> float:
        """One round: the assignment, its ``score(a) -> (gains, satisfied)`` on
        the round's clauses of total ``weight``, the update."""
        self._check_loaded()
        if self._pending is None:
            self._pending = self._graph.sample(self._rng)
        a = self._pending
        gains, satisfied = score(a)
        self._graph.update(a, gains, paper_bias(self.bias, self.L, weight))
        self._pending = None
        self.n_rounds_ += 1
        self.satisfied_weight_ += satisfied
        self.total_weight_ += weight
        return satisfied

    # -- reading the distribution ---------------------------------------------
    def _mixture(self):
        """``pi`` as (support, probabilities), or None when it is a product."""
        self._check_loaded()
        return self._graph.mixture([self._estimate_seed, self.n_rounds_])

    @property
    def probabilities_(self) -> np.ndarray:
        mixture = self._mixture()
        if mixture is None:
            return self._graph.probabilities()
        support, probs = mixture
        return probs @ support

    def best_assignment(self) -> np.ndarray:
        """The most probable assignment under ``pi``.

        For the exact product (``regret="external"``, ``L >= n_vars``) every
        variable takes its more probable value (false on ties, the root's);
        otherwise the most probable assignment of the support.

        Returns
        -------
        ndarray of bool of shape (n_vars,)
        """
        mixture = self._mixture()
        if mixture is None:
            return self._graph.probabilities() > 0.5
        support, probs = mixture
        return support[int(np.argmax(probs))].astype(bool)

    def assignment_distribution(self) -> tuple[np.ndarray, np.ndarray]:
        """``pi`` as a list of assignments and their probabilities.

        ``regret="swap"``: the exact stationary distribution, every vertex
        with positive probability. ``regret="external"`` with ``L < n_vars``:
        the Monte Carlo estimate, deterministic for a given model, that
        :attr:`probabilities_` and :meth:`best_assignment` read. With the
        exact product (``regret="external"``, ``L >= n_vars``) the variables
        are independent and there is no list of assignments: read
        :attr:`probabilities_`.

        Returns
        -------
        assignments : ndarray of bool of shape (n_assignments, n_vars)
            Distinct assignments, a read-only array.
        probabilities : ndarray of shape (n_assignments,)
            Their probabilities (summing to 1), a read-only array.

        Raises
        ------
        ValueError
            When ``pi`` is the exact product.

        Examples
        --------
        >>> from sklearn_localregret import OnlineMaxSAT
        >>> solver = OnlineMaxSAT(2, regret="swap", bias=0.0, random_state=0)
        >>> solver.observe([1])  # all-false fails x1: flipping x1 gains 1
        0.0
        >>> solver.observe([[-1]], weights=[3])  # now (T, F) plays; back gains 3
        0.0
        >>> assignments, probs = solver.assignment_distribution()
        >>> assignments
        array([[False, False],
               [ True, False]])
        >>> probs  # balance: pi(F, F) * 1 = pi(T, F) * 3
        array([0.75, 0.25])
        """
        mixture = self._mixture()
        if mixture is None:
            raise ValueError(
                "pi is a product of independent variables here (regret="
                "'external', L >= n_vars): read probabilities_."
            )
        support, probs = mixture
        support = np.array(support, dtype=bool)
        probs = np.array(probs, dtype=float)
        support.flags.writeable = False
        probs.flags.writeable = False
        return support, probs

    @property
    def most_probable_assignment_(self) -> np.ndarray:
        return self.best_assignment()

    @property
    def colored_regret_(self) -> float:
        return self._graph.colored_regret()

    @property
    def swap_regret_(self) -> float:
        if not isinstance(self._graph, HypercubeSwapRegrets):
            raise AttributeError("swap_regret_ is only kept with regret='swap'.")
        return self._graph.swap_regret()

    @property
    def n_nonzero_regrets_(self) -> int:
        return self._graph.n_nonzero()

    @property
    def n_regret_rows_(self) -> int:
        return self._graph.table.n_rows

    @property
    def regret_table_(self):
        """The regret table, for inspection: read it, never update it."""
        return self._graph.table

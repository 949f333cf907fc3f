"""The hypercube locality graph: disjunctions and truth assignments.

Actions are bit vectors ``a`` in ``{0, 1}^n`` (a disjunction over ``n`` boolean
features, or an assignment of ``n`` variables), the root is the all-zeros vector
(the empty disjunction, the all-false assignment), the level of a vertex is its
number of ones and an edge flips one bit (paper, Examples "Online Max-3SAT" and
"Online Disjunct Learning"). Vertices are keyed by the bytes of their 0/1
``uint8`` array.

Two ways of keeping regret on it:

* :class:`HypercubeColoring` -- the admissible ``2n`` colouring: colour
  ``(k, x)`` is "set bit ``k`` to ``x``", stored in a
  :class:`~sklearn_localregret.engine.RegretTable` of width 2 (row ``k``,
  column ``x``). With ``L >= n`` (or ``L = None``) the stationary distribution
  is a product and is sampled exactly; with ``L < n`` the root redirect couples
  the bits and a :class:`~sklearn_localregret.engine.UniformizedChainSampler`
  (approximate, ``n_mcmc_steps`` per draw) runs from the last played vertex.
* :class:`HypercubeSwapRegrets` -- a regret per edge (local swap regret): one
  table row per played vertex, column ``k`` = flip bit ``k``, sampled exactly by
  :class:`~sklearn_localregret.engine.FiniteChainSampler`.

The utilities live here too, vectorised with numpy: :func:`disjunction_gains`
(rows classified by a disjunction) and :func:`maxsat_gains` (weighted clauses
satisfied by an assignment), each giving ``u(flip_k a) - u(a)`` for every ``k``.
"""

from __future__ import annotations

import copy

import numpy as np

from .._clause_matrix import ClauseMatrix, clause_matrix
from ..engine import (
    FORGET_EVERY,
    FORGET_TOLERANCE,
    FiniteChainSampler,
    RegretTable,
    UniformizedChainSampler,
    binary_site_probabilities,
)

__all__ = [
    "HypercubeColoring",
    "HypercubeSwapRegrets",
    "disjunction_gains",
    "disjunction_round",
    "maxsat_gains",
    "maxsat_round",
    "play_disjunction_rounds",
    "vertex_bits",
    "vertex_key",
]

# Chain draws behind the estimate of pi when L < n (approximate sampler only).
N_ESTIMATE_DRAWS = 512


def vertex_key(a) -> bytes:
    """Hashable key of a hypercube vertex: the bytes of its 0/1 ``uint8`` array.

    Examples
    --------
    >>> vertex_key([1, 0, 1])
    b'\\x01\\x00\\x01'
    """
    return np.asarray(a, dtype=np.uint8).tobytes()


def vertex_bits(key: bytes) -> np.ndarray:
    """The 0/1 ``uint8`` array of a vertex key (a read-only view).

    Examples
    --------
    >>> vertex_bits(b"\\x00\\x01")
    array([0, 1], dtype=uint8)
    """
    return np.frombuffer(key, dtype=np.uint8)


def _flipped_keys(bits: np.ndarray, ks: np.ndarray) -> list[bytes]:
    """Keys of the neighbours of ``bits`` along the flips ``ks``."""
    out = np.repeat(bits[None, :], len(ks), axis=0)
    out[np.arange(len(ks)), ks] ^= 1
    return [row.tobytes() for row in out]


class _HypercubeGraph:
    """What both regret variants share: vertices, levels, the diagnostics' T."""

    def __init__(self, n_vars: int, max_level: int | None):
        self.n_vars = int(n_vars)
        self.max_level = max_level
        self.root = bytes(self.n_vars)

    @property
    def n_updates(self) -> int:
        """Rounds played (the table counts them: :meth:`RegretTable.advance`)."""
        return self.table.n_rounds

    # A subclass's sampler (if any) points back at its graph; saving it
    # without that link keeps the state acyclic, which skops needs.
    def __getstate__(self):
        state = self.__dict__.copy()
        if self._sampler is not None:
            state["_sampler"] = copy.copy(self._sampler)
            state["_sampler"].graph = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self._sampler is not None:
            self._sampler.graph = self

    def level(self, vertex: bytes) -> int:
        """Number of ones of the vertex: its distance from the root."""
        return vertex.count(1)

    def colored_regret(self) -> float:
        """Time-averaged local colored regret ``sum_C (R[C])+ / T``.

        Discounted (regrets and ``T`` both) when the table has a discount.
        """
        return self.table.colored_regret() / max(self.table.effective_rounds, 1.0)

    def n_nonzero(self) -> int:
        """Number of colours (edges, for swap) with a non-zero biased regret."""
        return self.table.n_nonzero()


class HypercubeColoring(_HypercubeGraph):
    """Colored regret matching on the hypercube with the ``2n`` colouring.

    Row ``k`` of :attr:`table` is variable ``k``; column ``x`` is the colour
    "set bit ``k`` to ``x``". After playing ``a`` with gains
    ``g[k] = u(flip_k a) - u(a)`` the colours ``(k, 1 - a_k)`` receive
    ``g[k] - b`` (paper, Definition of (b, L, C)-colored-regret-matching). This
    colouring is admissible, so local external regret is at most the local
    colored regret divided by ``n`` (paper, Theorem on colored regret).

    Parameters
    ----------
    n_vars : int
        Number of bits ``n``.
    max_level : int or None, default=None
        The paper's ``L``. ``None`` or ``L >= n`` never redirects: the sites are
        independent and :meth:`sample` is exact. ``L < n`` uses the approximate
        uniformised chain with the root redirect.
    n_mcmc_steps : int, default=200
        Steps of the uniformised chain per draw when ``L < n``.
    discount : float, default=1.0
        ``lambda`` in (0, 1] of the regret table (1: undiscounted).

    Attributes
    ----------
    table : RegretTable
        The ``n x 2`` colour regrets.
    exact : bool
        Whether draws come from the exact product distribution.
    n_updates : int
        Rounds played (the ``T`` of the time averages).

    Examples
    --------
    >>> import numpy as np
    >>> cube = HypercubeColoring(3)
    >>> cube.update(np.array([0, 0, 1], dtype=np.uint8), np.array([2.0, -1.0, 1.0]))
    >>> cube.table.biased
    array([[ 0.,  2.],
           [ 0., -1.],
           [ 1.,  0.]])
    >>> cube.probabilities()
    array([1., 0., 0.])
    """

    def __init__(self, n_vars: int, max_level: int | None = None,
                 n_mcmc_steps: int = 200, discount: float = 1.0):
        super().__init__(n_vars, max_level)
        self.n_mcmc_steps = int(n_mcmc_steps)
        self.table = RegretTable(width=2, initial_rows=self.n_vars, discount=discount)
        self.exact = max_level is None or max_level >= self.n_vars
        self._state = self.root
        self._sampler = None if self.exact else UniformizedChainSampler(
            self, max_level, self.n_mcmc_steps)

    # -- the RateGraph protocol -------------------------------------------
    def positive_out_edges(self, vertex: bytes):
        """Flips with a positive colour regret out of ``vertex``, and the rates."""
        bits = vertex_bits(vertex)
        rates = self.table.rates[np.arange(self.n_vars), 1 - bits]
        ks = np.flatnonzero(rates > 0)
        return _flipped_keys(bits, ks), rates[ks]

    # -- sampling -----------------------------------------------------------
    def probabilities(self) -> np.ndarray:
        """``P(bit k = 1)`` under the product distribution (exact when ``L >= n``).

        ``R+[k, 1] / (R+[k, 0] + R+[k, 1])``, or 0 (the root's bit) when both
        are 0 (:ref:`engine-hypercube`). For ``L < n`` see
        :meth:`estimate_distribution`.
        """
        rates = self.table.rates
        return binary_site_probabilities(np.maximum(rates[:, 0], 0.0),
                                         np.maximum(rates[:, 1], 0.0))

    def draw(self, uniforms: np.ndarray) -> np.ndarray:
        """Exact product draws from uniforms: bit ``k`` is 1 iff ``u_k < P(bit k)``.

        Computed as ``u_k (R+[k, 0] + R+[k, 1]) < R+[k, 1]`` (no division; a
        site without regret keeps the root's 0). ``uniforms`` has shape
        ``(n,)`` or ``(rounds, n)``; returns booleans of the same shape. Every
        exact draw of this class goes through here, so pre-drawn uniforms give
        the same actions as :meth:`sample`.
        """
        rates = np.maximum(self.table.rates, 0.0)
        on = rates[:, 1]
        return uniforms * (rates[:, 0] + on) < on

    def sample(self, rng) -> np.ndarray:
        """Draw the action to play from ``pi`` (a fresh 0/1 ``uint8`` array).

        Exact for ``L >= n``: one uniform per bit. For ``L < n`` the chain
        advances ``n_mcmc_steps`` steps from the last played vertex.
        """
        if self.exact:
            return self.draw(rng.random(self.n_vars)).astype(np.uint8)
        rate_bound = float(np.maximum(self.table.rates, 0.0).sum())
        self._state = self._sampler.sample(self._state, rate_bound, rng)
        return vertex_bits(self._state).copy()

    def mixture(self, seed, n_draws: int = N_ESTIMATE_DRAWS):
        """``pi`` as ``(support, probabilities)``, or None when it is the product.

        With ``L < n`` a Monte Carlo estimate deterministic in ``seed``.
        """
        return None if self.exact else self.estimate_distribution(n_draws, seed)

    def estimate_distribution(self, n_draws: int, seed: int):
        """Monte Carlo estimate of ``pi`` for ``L < n`` (deterministic in ``seed``).

        Runs the uniformised chain from the last played vertex and keeps every
        ``n_mcmc_steps``-th state, without touching the chain used for play.

        Returns
        -------
        support : ndarray of uint8 of shape (n_distinct, n_vars)
        probs : ndarray of shape (n_distinct,)
        """
        if self.exact:
            raise ValueError("pi is an exact product here: use probabilities()")
        rng = np.random.default_rng(seed)
        rate_bound = float(np.maximum(self.table.rates, 0.0).sum())
        state, draws = self._state, []
        for _ in range(int(n_draws)):
            state = self._sampler.sample(state, rate_bound, rng)
            draws.append(state)
        keys, counts = np.unique(np.array(draws, dtype=object), return_counts=True)
        support = np.array([vertex_bits(k) for k in keys], dtype=np.uint8)
        return support.reshape(len(keys), self.n_vars), counts / counts.sum()

    # -- the update -------------------------------------------------------
    def update(self, a: np.ndarray, gains: np.ndarray, bias: float = 0.0) -> None:
        """One round: add ``gains[k] - bias`` to colour ``(k, 1 - a[k])`` for
        every ``k`` (after the round's discount, if any).

        With ``bias = 0`` only the non-zero gains are written (adding 0 changes
        nothing), which makes sparse utilities (one clause, one row) cheap.
        """
        a = np.asarray(a, dtype=np.uint8)
        self.table.advance()
        if bias == 0:
            ks = np.flatnonzero(gains)
            self.table.update_entries(ks, 1 - a[ks], gains[ks])
        else:
            self.table.update_entries(np.arange(self.n_vars), 1 - a, gains, bias)
        self._state = a.tobytes()

    def update_rounds(self, actions: np.ndarray, gains: np.ndarray,
                      bias: float = 0.0, played=None, n_rounds=None) -> None:
        """:meth:`update` for several consecutive rounds (rows), in order.

        The regrets come out bit for bit as with one :meth:`update` per round.
        ``played[i]`` is the round (0, 1, ...) of row ``i`` among ``n_rounds``
        consecutive rounds; rounds without a row had no gains (they still count,
        and decay the regrets). By default every row is its own round.
        """
        actions = np.asarray(actions, dtype=np.uint8)
        if played is None:
            played, n_rounds = np.arange(len(actions)), len(actions)
        if bias == 0:
            rounds, ks = np.nonzero(gains)
        else:
            rounds, ks = np.indices(actions.shape).reshape(2, -1)
        scales = self.table.round_scales(n_rounds)[np.asarray(played)[rounds]] \
            if self.table.discount != 1.0 else None
        self.table.update_sequence(ks, 1 - actions[rounds, ks], gains[rounds, ks],
                                   bias, scales)
        self.table.advance(n_rounds)
        if len(actions):
            self._state = actions[-1].tobytes()


class HypercubeSwapRegrets(_HypercubeGraph):
    """(b, L)-regret matching with a regret per hypercube edge (local swap).

    Row ``v`` of :attr:`table` belongs to the played vertex ``v`` (created the
    first time it is played), column ``k`` to the edge flipping bit ``k``. The
    stationary distribution from the root with the level-``L + 1`` redirect is
    solved exactly after every update by
    :class:`~sklearn_localregret.engine.FiniteChainSampler`
    (:ref:`engine-swap`), which re-reads only the row of the updated vertex.
    With a discount, every ``FORGET_EVERY`` rounds the vertices none of whose
    regrets exceeds ``FORGET_TOLERANCE * Delta`` in absolute value are
    forgotten (``Delta``: the largest ``|gain| + bias`` of a round so far), so
    the table and the solve stay bounded on a long stream (a vertex not
    played for ``ln(1 / (FORGET_TOLERANCE (1 - lambda))) / ln(1 / lambda) +
    FORGET_EVERY`` rounds is gone); undiscounted, they grow with the number
    of vertices ever played.

    Parameters
    ----------
    n_vars : int
        Number of bits ``n``.
    max_level : int or None, default=None
        The paper's ``L`` (None = infinity).
    discount : float, default=1.0
        ``lambda`` in (0, 1] of the regret table (1: undiscounted).

    Attributes
    ----------
    table : RegretTable
        Per-edge regrets, one row per played vertex.
    n_updates : int
        Rounds played.

    Examples
    --------
    >>> import numpy as np
    >>> swap = HypercubeSwapRegrets(2)
    >>> swap.update(np.array([0, 0], dtype=np.uint8), np.array([1.0, 3.0]))
    >>> support, probs = swap.distribution()
    >>> support
    array([[1, 0],
           [0, 1]], dtype=uint8)
    >>> probs
    array([0.25, 0.75])
    """

    def __init__(self, n_vars: int, max_level: int | None = None,
                 discount: float = 1.0):
        super().__init__(n_vars, max_level)
        self.table = RegretTable(width=self.n_vars, discount=discount)
        self._largest_round = 0.0  # Delta so far, the scale of forgetting
        self._sampler = FiniteChainSampler(self, max_level)
        self._support = np.zeros((1, self.n_vars), dtype=np.uint8)
        self._probs = np.ones(1)
        self._cdf = np.ones(1)

    def positive_out_edges(self, vertex: bytes):
        """Flips with a positive edge regret out of ``vertex``, and the rates."""
        row = self.table.find(vertex)
        if row < 0:
            return [], np.zeros(0)
        rates = self.table.rates[row]
        ks = np.flatnonzero(rates > 0)
        return _flipped_keys(vertex_bits(vertex), ks), rates[ks]

    def distribution(self):
        """The exact ``pi``: its support (one vertex per row) and probabilities."""
        return self._support, self._probs

    def mixture(self, seed=None, n_draws: int = N_ESTIMATE_DRAWS):
        """``pi`` as ``(support, probabilities)``: exact, so ``seed`` is unused."""
        return self.distribution()

    def sample(self, rng) -> np.ndarray:
        """Draw the action to play from ``pi`` (a fresh 0/1 ``uint8`` array)."""
        cdf = self._cdf
        i = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
        return self._support[min(i, len(cdf) - 1)].copy()

    def update(self, a: np.ndarray, gains: np.ndarray, bias: float = 0.0) -> None:
        """Add ``gains[k] - bias`` to every edge out of ``a``; re-solve ``pi``."""
        row = self.table.row(vertex_key(a))
        resets = self.table.clock.n_resets
        self.table.advance()
        if self.table.clock.n_resets != resets:  # every stored rate changed
            self._sampler.invalidate()
        self.table.update_entries(np.full(self.n_vars, row), np.arange(self.n_vars),
                                  gains, bias)
        # Only the edges out of ``a`` changed: the sampler re-reads that row
        # and re-solves only if a positive rate moved.
        self._sampler.invalidate(vertex_key(a))
        self._forget_quiet_vertices(float(np.abs(gains).max(initial=0.0)) + bias)
        vertices, probs = self._sampler.distribution()
        if probs is not self._probs:  # a new solve (else the same arrays)
            support = np.frombuffer(bytearray(b"".join(vertices)), dtype=np.uint8)
            self._support = support.reshape(len(vertices), self.n_vars)
            self._probs = probs
            self._cdf = np.cumsum(probs)

    def _forget_quiet_vertices(self, round_range: float) -> None:
        """With a discount, drop the rows whose regrets decayed to nothing."""
        self._largest_round = max(self._largest_round, round_range)
        table = self.table
        if table.discount == 1.0 or table.n_rounds % FORGET_EVERY:
            return
        quiet = np.flatnonzero(
            table.row_magnitudes() <= FORGET_TOLERANCE * self._largest_round)
        if quiet.size:
            keys = table.keys()
            table.forget(quiet)
            for i in quiet.tolist():
                self._sampler.invalidate(keys[i])

    def swap_regret(self) -> float:
        """Time-averaged local swap regret ``sum_i max_j R+[i, j] / T``
        (discounted, regrets and ``T``, when the table has a discount)."""
        return float(self.table.row_max_regret().sum()) / max(
            self.table.effective_rounds, 1.0)


# -- utilities ------------------------------------------------------------


def disjunction_round(a, X, y, w):
    """Gains of every flip and the weight misclassified by disjunction ``a``.

    Parameters
    ----------
    a : ndarray of shape (n,)
        The disjunction (0/1).
    X : ndarray of shape (m, n)
        0/1 rows.
    y : ndarray of shape (m,)
        1 for the positive class, 0 for the negative one.
    w : ndarray of shape (m,)
        Row weights.

    Returns
    -------
    gains : ndarray of shape (n,)
        ``u(flip_k a) - u(a)`` with ``u`` the weight classified correctly.
    wrong : float
        Weight of the rows ``a`` gets wrong.
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    positive = np.asarray(y) == 1
    active = X @ np.asarray(a, dtype=np.float64)
    return _disjunction_round(a, X, positive, w, np.where(positive, w, -w), active)


def _disjunction_round(a, X, positive, w, signed, active):
    """:func:`disjunction_round` with ``signed = +-w`` and ``active = X @ a`` given."""
    wrong = float(w @ ((active > 0) != positive))
    # Adding k flips the rows where the disjunction is false and x_k = 1 to
    # positive; removing k flips to negative the rows where k is the sole
    # active literal (active == 1 and x_k = 1).
    add = (signed * (active == 0)) @ X
    remove = (signed * (active == 1)) @ X
    # (+ 0.0 turns the -0.0 of an unchanged removal into 0.0.)
    return np.where(np.asarray(a) > 0, -remove, add) + 0.0, wrong


def play_disjunction_rounds(cube: HypercubeColoring, X, y, w, batch_size: int,
                            biases, rng) -> float:
    """Play consecutive disjunction rounds with the exact product sampler.

    Equivalent, state for state, to running for each round of ``batch_size``
    rows ``a = cube.sample(rng)``, ``gains, wrong = disjunction_round(a, ...)``
    and ``cube.update(a, gains, bias)``: the rounds' uniforms are drawn in one
    call (the same random stream) and go through :meth:`HypercubeColoring.draw`.
    With a zero bias it is faster: rounds are drawn in windows under the current
    ``pi`` and all rounds up to the first one whose update changes a positive
    regret ``R+`` (hence ``pi``) are scored and applied in bulk. Once the
    learner has settled most updates only push non-positive regrets further
    down (or are zero: every row with two active literals), so windows grow
    long.

    Parameters
    ----------
    cube : HypercubeColoring
        With an exact sampler (``L >= n`` or None).
    X : ndarray of shape (m, n)
        0/1 rows, starting on a round boundary.
    y : ndarray of shape (m,)
        1 for a positive row, 0 for a negative one.
    w : ndarray of shape (m,)
        Row weights.
    batch_size : int
        Rows per round (the last round may be shorter).
    biases : float or ndarray of shape (n_rounds,)
        The bias ``b`` of every round.
    rng : numpy RandomState or Generator

    Returns
    -------
    float
        Weight of the rows the played disjunctions got wrong.

    Examples
    --------
    >>> import numpy as np
    >>> cube = HypercubeColoring(2)
    >>> X = np.array([[1, 0], [0, 1], [1, 1]])
    >>> play_disjunction_rounds(cube, X, np.array([1, 1, 0]), np.ones(3), 1, 0.0,
    ...                         np.random.RandomState(0))
    3.0
    >>> cube.n_updates, cube.table.biased.tolist()
    (3, [[0.0, 1.0], [0.0, 1.0]])
    """
    m, n = X.shape
    n_rounds = -(-m // batch_size)
    uniforms = rng.random((n_rounds, n))
    X = np.asarray(X, dtype=np.float64)
    positive = np.asarray(y) == 1
    w = np.asarray(w, dtype=np.float64)
    signed = np.where(positive, w, -w)
    biases = np.broadcast_to(np.asarray(biases, dtype=np.float64), (n_rounds,))
    wrong = 0.0
    if np.any(biases != 0):
        for t in range(n_rounds):
            lo, hi = t * batch_size, min((t + 1) * batch_size, m)
            a = cube.draw(uniforms[t]).astype(np.uint8)
            active = X[lo:hi] @ a.astype(np.float64)
            gains, wr = _disjunction_round(a, X[lo:hi], positive[lo:hi], w[lo:hi],
                                           signed[lo:hi], active)
            cube.update(a, gains, biases[t])
            wrong += wr
        return wrong
    if n_rounds == 1:  # one call per round (streaming): skip the window logic
        drawn = cube.draw(uniforms[0])
        active = (X * drawn).sum(axis=1)
        row_gains = np.where(drawn, -(signed * (active == 1))[:, None] * X,
                             (signed * (active == 0))[:, None] * X)
        gains = row_gains[0] if m == 1 else np.add.reduceat(row_gains, [0], axis=0)[0]
        cube.update(drawn.astype(np.uint8), gains, 0.0)
        return float(w @ ((active > 0) != positive))
    table, cap = cube.table, max(1, (1 << 20) // (batch_size * n))
    has_ones = X.any(axis=1)
    t, window = 0, 4
    while t < n_rounds:
        stop = min(n_rounds, t + window)
        r0, r1 = t * batch_size, min(stop * batch_size, m)
        drawn = cube.draw(uniforms[t:stop])
        per_row = drawn if batch_size == 1 else np.repeat(drawn, batch_size, axis=0)
        rows = X[r0:r1]
        active = (rows * per_row[: r1 - r0]).sum(axis=1)
        # Only rows with 0 or 1 active literals (and weight, and a one) have
        # non-zero gains.
        live = np.flatnonzero((signed[r0:r1] != 0) & (
            (active == 1) | ((active == 0) & has_ones[r0:r1])))
        used = stop - t
        if len(live):
            live_rows, live_w, live_act = rows[live], signed[r0 + live], active[live]
            row_gains = np.where(per_row[live], -(live_w * (live_act == 1))[:, None]
                                 * live_rows, (live_w * (live_act == 0))[:, None]
                                 * live_rows)
            round_of = live // batch_size
            if batch_size == 1:
                rounds, gains = round_of, row_gains
            else:
                starts = np.flatnonzero(np.r_[True, round_of[1:] != round_of[:-1]])
                rounds = round_of[starts]
                gains = np.add.reduceat(row_gains, starts, axis=0)
            acts = drawn[rounds]
            # The rounds drawn under the current pi stay valid up to the first
            # one whose update changes a positive regret R+ (and so pi); with a
            # discount, in the table's stored units (pi ignores the common
            # factor), each round's gains times its scale.
            scaled = gains
            if table.discount != 1.0:
                scaled = gains * table.round_scales(used)[rounds][:, None]
            changed = np.zeros(len(rounds), dtype=bool)
            for col, moved in ((1, np.where(acts, 0.0, scaled)),
                               (0, np.where(acts, scaled, 0.0))):
                path = np.maximum(np.cumsum(
                    np.vstack([table.rates[:, col], moved]), axis=0), 0.0)
                changed |= (path[1:] != path[:-1]).any(axis=1)
            n_live = len(rounds)
            if changed.any():
                n_live = int(np.argmax(changed)) + 1
                used = int(rounds[n_live - 1]) + 1
            cube.update_rounds(acts[:n_live], gains[:n_live],
                               played=rounds[:n_live], n_rounds=used)
        else:
            table.advance(used)
        end = min((t + used) * batch_size, m)
        wrong += float(w[r0:end] @ ((active[: end - r0] > 0) != positive[r0:end]))
        window = min(2 * window, cap) if t + used == stop else max(1, 2 * used)
        t += used
    return wrong


def disjunction_gains(a, X, y, w=None) -> np.ndarray:
    """``u(flip_k a) - u(a)`` for every feature ``k``; ``u`` = weight correct.

    Parameters
    ----------
    a : array-like of shape (n,)
        The disjunction: ``a[k] = 1`` when feature ``k`` is one of its literals.
    X : array-like of shape (m, n)
        0/1 rows.
    y : array-like of shape (m,)
        1 for a positive row, 0 for a negative one.
    w : array-like of shape (m,), default=None
        Row weights (ones when None).

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    ``x0 OR x1`` on three rows: adding ``x2`` fixes the last row; removing
    ``x0`` breaks the first row (it is its only active literal) but fixes the
    second (negative) one.

    >>> import numpy as np
    >>> X = np.array([[1, 0, 0], [1, 0, 1], [0, 0, 1]])
    >>> disjunction_gains([1, 1, 0], X, [1, 0, 1])
    array([0., 0., 1.])
    >>> disjunction_gains([1, 0, 0], X, [1, 0, 1])
    array([0., 0., 1.])
    >>> disjunction_gains([1, 0, 0], X, [0, 0, 1])
    array([2., 0., 1.])
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    return disjunction_round(a, X, y, w)[0]


def maxsat_round(a, clause_of, var_of, sign_of, n_neg, weights):
    """Gains of every flip and the satisfied weight, for flat clause literals.

    The clauses are given as their signed incidence entries (the non-zeros of
    :attr:`sklearn_localregret._dimacs.ClauseMatrix.signed`): entry ``e`` says
    clause ``clause_of[e]`` holds variable ``var_of[e]`` positively
    (``sign_of[e] = 1``) or negated (-1). ``n_neg[c]`` is the number of
    negative literals of clause ``c``, so its true-literal count under ``a`` is
    ``n_neg[c] + sum_e sign_of[e] * a[var_of[e]]``.

    Returns
    -------
    gains : ndarray of shape (n,)
        ``u(flip_k a) - u(a)``, ``u`` = weight of the satisfied clauses.
    satisfied : float
        ``u(a)``.
    """
    a = np.asarray(a)
    weights = np.asarray(weights, dtype=np.float64)
    bits = a[var_of].astype(np.float64)
    count = n_neg + np.bincount(clause_of, weights=sign_of * bits,
                                minlength=len(weights))
    # Flipping a false literal satisfies an unsatisfied clause; flipping the
    # only true literal of a clause unsatisfies it.
    becomes_true = sign_of * (1.0 - 2.0 * bits) > 0
    count_e = count[clause_of]
    w_e = weights[clause_of]
    contrib = np.where(becomes_true, w_e * (count_e == 0), -w_e * (count_e == 1))
    gains = np.bincount(var_of, weights=contrib, minlength=a.shape[0])
    return gains, float(weights @ (count > 0))


def maxsat_gains(a, clauses, weights=None) -> np.ndarray:
    """``u(flip_k a) - u(a)`` for every variable; ``u`` = satisfied weight.

    Parameters
    ----------
    a : array-like of shape (n,)
        The assignment (0/1); ``a[i]`` is the value of DIMACS variable ``i + 1``.
    clauses : ClauseMatrix or clauses
        A :func:`sklearn_localregret._dimacs.clause_matrix`, or anything it
        accepts (DIMACS integer literals, any width).
    weights : array-like of shape (n_clauses,), default=None
        Clause weights (ones when None).

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    ``(x1 or not x2) and (x2 or x3)`` at the all-false assignment: the second
    clause is unsatisfied, setting ``x2`` satisfies it but breaks the first,
    setting ``x3`` satisfies it.

    >>> maxsat_gains([0, 0, 0], [[1, -2], [2, 3]])
    array([0., 0., 1.])
    >>> maxsat_gains([0, 0, 0], [[1, -2], [2, 3]], weights=[1, 2])
    array([0., 1., 2.])
    """
    a = np.asarray(a)
    if not isinstance(clauses, ClauseMatrix):
        clauses = clause_matrix(clauses, n_vars=a.shape[0])
    signed = clauses.signed.tocoo()
    m = clauses.shape[0]
    weights = np.ones(m) if weights is None else np.asarray(weights, dtype=float)
    return maxsat_round(a, signed.row, signed.col, signed.data.astype(np.float64),
                        clauses.n_neg, weights)[0]

"""The hedged prediction: AdaHedge over the vote and the play of ``pi``.

A local-regret learner can predict a row in two ways. The *vote* is the class
``pi`` finds most probable; it is the better guess on a stationary stream, but
an adversary who knows it can make it wrong on every row (the vote follows the
recent labels, so labels that alternate against it defeat it). The *play* is
a class drawn from ``pi``'s probabilities, which is what the randomised plays
of the guarantee predict. :class:`AdaHedge` weighs the two from their losses
on the stream itself (measured on each round's rows before the round is
learnt), and the prediction gives each row the vote with the vote's weight,
otherwise the play (``_base/hedge_draws.py``). A tree adds further experts,
its root models (``_tree/root_model.py``), each with its own weight.

Why AdaHedge (de Rooij, van Erven, Grunwald and Koolen, "Follow the Leader If
You Can, Hedge If You Must", JMLR 2014): it needs no learning rate, no
horizon and no loss range, and its learning rate grows as long as one expert
keeps leading, so that a stationary stream pays almost nothing for the hedge.
The bound, derived in the user guide ("The hedged prediction"): after ``T``
rounds of losses in ``[0, S]``, the hedge's expected loss exceeds each
expert's (its initial loss, :data:`PLAY_HANDICAP` for the play, included) by
at most ``2 Delta_T <= S sqrt(T ln 2) + 2 S``, with ``Delta_T`` the
cumulative mixability gap (:attr:`AdaHedge.gap`). With a prior ``pi`` over
the experts (a forest's members share one expert's part:
``ensemble/_combination.py``), the bound against expert ``k`` is
``Delta_T (1 + ln(1 / pi_k) / ln K)``, ``2 Delta_T`` for the uniform prior.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["PLAY_HANDICAP", "AdaHedge"]

#: The loss (in sample weight: rows at unit weight) the randomised experts
#: start with (the play; a forest's members). A model predicts as the vote,
#: scikit-learn's most probable class, or as another deterministic expert,
#: until the play has made that many fewer mistakes (the first rounds and the
#: small fits of scikit-learn's checks draw no class); it costs at most as
#: much against the play on an adversarial stream. The deterministic experts
#: (the vote, the root models, the disjunct learner's linear model) start at
#: 0: on the stream leaderboard a handicap for the root models only slowed
#: the hedge down where they lead.
PLAY_HANDICAP = 10.0


class AdaHedge:
    """Exponential weights over a few experts, with AdaHedge's learning rate.

    The weights are ``exp(-eta L_k)`` normalised, ``L_k`` an expert's
    cumulative loss (from its initial loss) and ``eta = ln K / Delta``,
    ``Delta`` the cumulative mixability gap. While ``Delta = 0``, ``eta`` is
    infinite: the weight is shared by the leaders (follow the leader).

    Against every expert ``k`` the hedge's cumulative expected loss is at most
    ``L_k + 2 Delta`` (initial loss included; :attr:`regret_bound` is
    ``2 Delta``), and ``2 Delta <= S sqrt(T ln K) + 2 S`` after ``T`` rounds of
    losses in ``[0, S]``.

    Parameters
    ----------
    initial_losses : sequence of float
        The losses the experts start with: a handicap for the experts that
        must do better than the others before they get weight
        (:meth:`initial_losses` keeps them, for merges).
    prior : sequence of float, optional
        The experts' weights before any loss, positive and summing to 1
        (uniform if None). The weights are ``pi_k exp(-eta L_k)``
        normalised; the learning rate is AdaHedge's, ``ln K / Delta``, so
        the bound against expert ``k`` becomes ``Delta (1 + ln(1 / pi_k) /
        ln K)`` (:meth:`regret_bound_against`): a prior that gives several
        similar experts one expert's share keeps them from outweighing a
        different one while their losses are close.

    Examples
    --------
    >>> hedge = AdaHedge([0.0, 0.0])
    >>> hedge.weights().tolist()
    [0.5, 0.5]
    >>> for _ in range(20):
    ...     hedge.update([0.0, 1.0])  # the first expert is always right
    >>> bool(hedge.weights()[0] > 0.999)
    True

    A prior: before any loss the weights are the prior's, and the leaders
    share the weight in its proportions.

    >>> AdaHedge([0.0, 0.0, 0.0], prior=[0.5, 0.25, 0.25]).weights().tolist()
    [0.5, 0.25, 0.25]
    """

    def __init__(self, initial_losses, prior=None):
        # Plain floats: a few experts, updated every round (numpy's per-call
        # cost would be most of the hedge's time).
        self._losses = [float(v) for v in initial_losses]
        self.initial = tuple(self._losses)  # counted once by a merge
        self.gap = 0.0  # Delta, the cumulative mixability gap
        self.hedge_loss = 0.0  # the hedge's cumulative expected loss
        if prior is not None:
            prior = [float(p) for p in prior]
            if (
                len(prior) != len(self._losses)
                or not all(p > 0.0 and math.isfinite(p) for p in prior)
                or abs(math.fsum(prior) - 1.0) > 1e-12
            ):
                raise ValueError(
                    f"AdaHedge: the prior must give each of the "
                    f"{len(self._losses)} experts a positive weight, summing "
                    f"to 1; got {prior}"
                )
            self.log_prior = tuple(math.log(p) for p in prior)

    @property
    def prior(self) -> np.ndarray:
        """The experts' weights before any loss (uniform unless given)."""
        log_prior = self.__dict__.get("log_prior")  # saved before: uniform
        if log_prior is None:
            return np.full(len(self._losses), 1.0 / len(self._losses))
        return np.exp(log_prior)

    @property
    def losses(self) -> np.ndarray:
        """The experts' cumulative losses, initial losses included."""
        return np.array(self._losses)

    def initial_losses(self) -> np.ndarray:
        """The losses the experts started with (a hedge saved before it kept
        them started every expert but the first, the vote, at
        :data:`PLAY_HANDICAP`)."""
        initial = self.__dict__.get("initial")
        if initial is None:
            return np.array([0.0] + [PLAY_HANDICAP] * (len(self._losses) - 1))
        return np.array(initial)

    @property
    def n_experts(self) -> int:
        """How many experts the hedge weighs."""
        return len(self._losses)

    @property
    def learning_rate(self) -> float:
        """``eta = ln K / Delta`` (``inf`` while ``Delta`` is 0)."""
        if self.gap <= 0.0:
            return math.inf
        return math.log(len(self._losses)) / self.gap

    def weights(self) -> np.ndarray:
        """The experts' weights now, summing to 1."""
        return np.exp(self._log_weights(self.learning_rate))

    def weight(self, k: int) -> float:
        """Expert ``k``'s weight now (kept until the losses or the gap change:
        a prediction reads several weights of the same round)."""
        key = (self.gap, *self._losses)
        cached = self.__dict__.get("_cached_weights")
        if cached is None or cached[0] != key:
            weights = [math.exp(v) for v in self._log_weights(self.learning_rate)]
            cached = self._cached_weights = (key, weights)
        return cached[1][k]

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_cached_weights", None)  # a cache
        return state

    def _log_weights(self, eta: float) -> list[float]:
        low = min(self._losses)
        log_prior = self.__dict__.get("log_prior")
        if log_prior is not None:
            return self._log_weights_with_prior(eta, low, log_prior)
        if math.isinf(eta):  # follow the leaders
            leaders = [loss == low for loss in self._losses]
            share = -math.log(sum(leaders))
            return [share if lead else -math.inf for lead in leaders]
        # exp(-eta (L_k - min L)): the leader's term is 1, nothing overflows.
        scaled = [-eta * (loss - low) for loss in self._losses]
        norm = math.log(sum(math.exp(v) for v in scaled))
        return [v - norm for v in scaled]

    def _log_weights_with_prior(self, eta: float, low: float, log_prior) -> list:
        if math.isinf(eta):  # the leaders, in the prior's proportions
            scaled = [
                lp if loss == low else -math.inf
                for lp, loss in zip(log_prior, self._losses)
            ]
        else:
            scaled = [
                lp - eta * (loss - low) for lp, loss in zip(log_prior, self._losses)
            ]
        top = max(scaled)  # finite: a leader's
        norm = top + math.log(sum(math.exp(v - top) for v in scaled))
        return [v - norm for v in scaled]

    def update(self, losses) -> None:
        """Add one round's losses (one per expert; any non-negative range).

        A loss that is not a finite number is refused (``ValueError``): it
        would make every weight NaN for the rest of the stream.
        """
        losses = [float(v) for v in losses]
        if not all(math.isfinite(v) for v in losses):
            raise ValueError(f"AdaHedge: a round's losses must be finite, got {losses}")
        eta = self.learning_rate
        log_w = self._log_weights(eta)
        h = sum(math.exp(lw) * loss for lw, loss in zip(log_w, losses))
        after = [a + b for a, b in zip(self._losses, losses)]
        if math.isinf(eta):
            # The limit of the mix loss: how much the leader's loss grew.
            m = min(after) - min(self._losses)
        else:
            # -(1/eta) ln sum_k w_k exp(-eta l_k), in logs: no overflow.
            terms = [lw - eta * loss for lw, loss in zip(log_w, losses)]
            top = max(terms)
            m = -(top + math.log(sum(math.exp(t - top) for t in terms))) / eta
        # delta >= 0 in exact arithmetic; rounding can make it -1e-17.
        self.gap += max(h - m, 0.0)
        self.hedge_loss += h
        self._losses = after

    @property
    def regret_bound(self) -> float:
        """The hedge's loss minus any expert's (initial loss included) is at
        most this: ``2 Delta`` for the uniform prior, else the largest of
        :meth:`regret_bound_against`."""
        log_prior = self.__dict__.get("log_prior")
        if log_prior is None:
            return 2.0 * self.gap
        return self.regret_bound_against(int(np.argmin(log_prior)))

    def regret_bound_against(self, k: int) -> float:
        """``Delta (1 + ln(1 / pi_k) / ln K)``: the hedge's loss minus expert
        ``k``'s is at most this (``2 Delta`` for the uniform prior).

        Why: for learning rates that do not increase, the mix loss is at most
        ``L_k + ln(1 / pi_k) / eta_T``, and the hedge's loss is the mix loss
        plus ``Delta``; AdaHedge's last rate is ``ln K / Delta_{T-1}`` with
        ``Delta_{T-1} <= Delta``.
        """
        n = len(self._losses)
        log_prior = self.__dict__.get("log_prior")
        if log_prior is None or n < 2:
            return 2.0 * self.gap
        return self.gap * (1.0 - log_prior[k] / math.log(n))

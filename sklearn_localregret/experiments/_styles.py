"""One look per learner in every figure: colour, line style, marker.

The paper's experiments and the stream leaderboard draw the same learners in
many panels; a learner keeps its colour everywhere, so that a reader who has
found "C4.5 retrained" once finds it again. Our local-regret learners are
solid and bold, their peers thinner with their own dashes and markers, and the
references (a best hypothesis in hindsight, random play) grey or black: no
colour of a learner means a reference in another panel.
"""

from __future__ import annotations

__all__ = ["style", "REFERENCES"]

# Local-regret learners: solid, strong colours (tab10 blues and oranges).
_OURS = {
    "local external": "tab:blue",
    "local external (paper)": "tab:blue",
    "removal sets": "navy",
    "local swap": "tab:orange",
    "lr-tree": "tab:blue",
    "lr-tree-swap": "tab:orange",
    "lr-disjunct": "navy",
    "lr-forest": "darkorange",
}
# Peers: each its colour, dashes and marker (marks every tenth of the curve,
# so that lines stay told apart in print and for colour-blind readers).
_PEERS = {
    "C4.5 retrained": ("tab:purple", "--", "s"),
    "tree-retrained": ("tab:purple", "--", "s"),
    "SGDClassifier": ("tab:brown", "-.", "v"),
    "sgd": ("tab:brown", "-.", "v"),
    "Winnow2": ("tab:pink", "--", "D"),
    "WalkSAT (offline)": ("tab:olive", "--", None),
    "river-ht": ("tab:green", "--", "o"),
    "river-hat": ("tab:cyan", "--", "^"),
    "river-arf": ("darkgreen", "--", "P"),
    "perceptron": ("tab:red", "-.", "x"),
    "passive-aggressive": ("tab:pink", "-.", "D"),
    "gaussian-nb": ("goldenrod", "-.", "*"),
}
#: References: hypotheses in hindsight and random play, in greys.
REFERENCES = {
    "best label": ("0.35", (0, (5, 2))),
    "best stump": ("0.0", (0, (1, 1.5))),
    "best label / best tree": ("0.0", "-"),
    "best disjunction": ("0.0", (0, (5, 2))),
    "random guessing": ("0.6", (0, (3, 1, 1, 1))),
    "random assignment": ("0.6", (0, (3, 1, 1, 1))),
}
_FALLBACK = ("tab:gray", ":", "h")


def style(learner: str, n_points: int = 0) -> dict:
    """Keyword arguments of ``Axes.plot`` that draw ``learner``.

    Parameters
    ----------
    learner : str
        The label a figure gives it (``"local swap"``, ``"river-ht"``, ...).
    n_points : int, default=0
        Points of the curve: markers go on about ten of them.

    Examples
    --------
    >>> style("C4.5 retrained")["color"] == style("tree-retrained")["color"]
    True
    >>> style("local external")["ls"], style("best label / best tree")["color"]
    ('-', '0.0')
    """
    if learner in _OURS:
        return {"color": _OURS[learner], "ls": "-", "lw": 2.0}
    if learner in REFERENCES:
        colour, dashes = REFERENCES[learner]
        return {"color": colour, "ls": dashes, "lw": 1.0}
    colour, dashes, marker = _PEERS.get(learner, _FALLBACK)
    kwargs: dict = {"color": colour, "ls": dashes, "lw": 1.4}
    if marker is not None:
        kwargs.update(marker=marker, ms=4, markevery=max(n_points // 10, 1))
    return kwargs

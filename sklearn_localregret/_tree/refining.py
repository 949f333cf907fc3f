"""Which features the tree's threshold source refines (``refined_features``)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["REFINED_FEATURES_AUTO", "FeatureRefining"]

# refined_features="auto": inputs of more columns refine this many features
# at each threshold checkpoint (narrower ones, every feature).
REFINED_FEATURES_AUTO = (64, 32)


class FeatureRefining:
    """The tree's side of refining features (a mixin of
    :class:`~sklearn_localregret.LocalRegretTreeClassifier`): how many, and
    the scores that rank them (user guide, "Wide input")."""

    refined_features: Any
    _each_player: Any
    _player: Any

    def _refined_features(self, n_features: int) -> int | None:
        """How many features each threshold checkpoint refines (see
        ``refined_features``)."""
        if self.refined_features == "auto":
            columns, refined = REFINED_FEATURES_AUTO
            return refined if n_features > columns else None
        return self.refined_features

    def _shares(self) -> np.ndarray:
        """Per test, the players' summed shares of their tables' draws (what
        ranks the features that thresholds refine)."""
        return sum(self._each_player(lambda: self._player.table.test_shares()))

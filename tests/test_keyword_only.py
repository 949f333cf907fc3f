"""Every option of every public estimator is keyword-only, as in scikit-learn.

Only what identifies the object stays positional: the tree's and the disjunct
learner's ``regret``, ``OnlineMaxSAT``'s ``n_vars`` and ``regret``, the River
adapter's ``estimator``. A second positional argument is a TypeError.
"""

import inspect

import pytest

from sklearn_localregret import (
    LocalRegretDisjunctClassifier,
    LocalRegretTreeClassifier,
    OnlineMaxSAT,
)
from sklearn_localregret.baselines import Winnow2Classifier

POSITIONAL = {
    LocalRegretTreeClassifier: ["regret"],
    LocalRegretDisjunctClassifier: ["regret"],
    OnlineMaxSAT: ["n_vars", "regret"],
    Winnow2Classifier: [],
}


@pytest.mark.parametrize("cls", POSITIONAL, ids=lambda c: c.__name__)
def test_options_are_keyword_only(cls):
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert positional == POSITIONAL[cls]
    with pytest.raises(TypeError, match="positional"):
        cls(*([4] * (len(positional) + 1)))


def test_the_river_adapter_takes_only_its_estimator_positionally():
    pytest.importorskip("river")
    from sklearn_localregret.river import RiverAdapter

    RiverAdapter(Winnow2Classifier(), classes=[0, 1])
    with pytest.raises(TypeError, match="positional"):
        RiverAdapter(Winnow2Classifier(), [0, 1])

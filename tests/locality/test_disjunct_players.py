"""The disjunct learner's graphs behind one interface (issue 30).

Every graph the learner can build has a player; the learner reaches its graph
through it and holds no branch on the graph's type; what the players read
(the literals' probabilities, the removal sets) is what the graphs hold.
"""

import ast
from pathlib import Path

import numpy as np
import pytest

import sklearn_localregret
from sklearn_localregret import LocalRegretDisjunctClassifier
from sklearn_localregret.locality.disjunct_players import (
    PLAYERS,
    DisjunctPlayer,
    HypercubePlayer,
    RemovalSetPlayer,
    SwapPlayer,
    new_graph,
    player_of,
)

PARAMS = {
    "removal-sets": ({}, RemovalSetPlayer),
    "hypercube": ({"graph": "hypercube"}, HypercubePlayer),
    "swap": ({"regret": "swap"}, SwapPlayer),
    "chain": ({"L": 2}, RemovalSetPlayer),
}


@pytest.mark.parametrize("name", PARAMS)
def test_each_graph_has_its_player(name):
    params, player = PARAMS[name]
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (300, 6))
    y = X[:, 0] | X[:, 3]
    model = LocalRegretDisjunctClassifier(random_state=0, **params).fit(X, y)
    assert type(model._player) is player
    assert type(player_of(model._graph)) is player
    assert model._player.exact(model._graph) == (name in ("removal-sets", "hypercube"))
    probs = model.feature_probabilities_
    assert probs.shape == (6,) and np.all((probs >= 0) & (probs <= 1))
    assert model.n_removal_sets_ == (
        model._graph.n_sets_tracked if player is RemovalSetPlayer else 0
    )
    if player is SwapPlayer:
        assert model.swap_regret_ >= 0
    else:
        with pytest.raises(AttributeError, match="regret='swap'"):
            model.swap_regret_


def test_every_graph_new_graph_builds_has_a_player():
    names = ("removal-sets", "hypercube", "swap")
    for name in names:
        graph = new_graph(name, 5, None, 4, 10, 1.0)
        assert isinstance(player_of(graph), DisjunctPlayer)
    assert set(PLAYERS) == {type(new_graph(n, 5, 3, 4, 10, 0.9)) for n in names}


def test_the_estimator_holds_no_branch_on_its_graph():
    """``_disjunct.py`` and ``_disjunct_base.py`` name no graph class outside
    annotations: the players decide."""
    root = Path(sklearn_localregret.__file__).parent
    graphs = {cls.__name__ for cls in PLAYERS}
    for module in ("_disjunct.py", "_disjunct_base.py"):
        tree = ast.parse((root / module).read_text(encoding="utf-8"))
        annotations = {
            id(node)
            for stmt in ast.walk(tree)
            if isinstance(stmt, ast.AnnAssign)
            for node in ast.walk(stmt.annotation)
        }
        used = {
            node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name)
            and node.id in graphs
            and id(node) not in annotations
        }
        assert used == set(), module

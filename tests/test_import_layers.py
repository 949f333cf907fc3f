"""The house: every module imports, imports only run down the floors, no cycle.

The graph is read from the source (``ast``): the imports at the top of each
module of ``sklearn_localregret``, which run when it is imported. Imports
inside functions are deliberate late bindings (optional dependencies, the
command line's experiments) and are not counted. The floors are those of
``docs/architecture.rst``; a new top-level module or subpackage must be given
one here.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import sklearn_localregret

PACKAGE = "sklearn_localregret"
ROOT = Path(sklearn_localregret.__file__).parent

# Bottom first. A module may import from its own floor or any floor below.
FLOORS = [
    (
        "helpers",
        {
            "_weights",
            "_checks",
            "_interrupts",
            "_arguments",
            "_moved",
            "_hedge",
            "_loaded_check",
        },
    ),
    ("engine", {"engine"}),
    ("random numbers", {"_pcg64_skip", "_random", "_sparse_blocks"}),
    ("threshold tests", {"thresholds"}),
    ("locality graphs", {"locality", "_river_rows"}),
    (
        "the classifiers' base",
        {"_base", "_discount_players", "_column_reading", "_disjunct_base", "merging"},
    ),
    (
        "learners",
        {"_disjunct", "_disjunct_linear", "_tree_classifier", "_tree", "maxsat"},
    ),
    ("ensembles and baselines", {"ensemble", "baselines"}),
    (
        "public API",
        {
            "__init__",
            "persistence",
            "_consistency",
            "evaluate",
            "datasets",
            "river",
            "distributed",
        },
    ),
    ("commands", {"cli", "__main__", "experiments"}),
]
FLOOR = {unit: level for level, (_, units) in enumerate(FLOORS) for unit in units}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in ROOT.rglob("*.py")}


def _imported(module: str, path: Path) -> set[str]:
    """Modules of the package that ``module`` imports at its top level."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:
                base = module.split(".")[: None if is_package else -1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            subs = {f"{target}.{a.name}" for a in node.names} & MODULES.keys()
            found |= subs
            if len(subs) < len(node.names):
                found.add(target)
    return {name for name in found if name in MODULES and name != module}


GRAPH = {module: _imported(module, path) for module, path in MODULES.items()}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_imports(module):
    if module == f"{PACKAGE}.__main__":
        pytest.skip("running it parses the command line")
    importlib.import_module(module)


def test_every_top_level_module_has_a_floor():
    assert {_unit(m) for m in MODULES} - FLOOR.keys() == set()


def test_imports_only_run_down_the_floors():
    upward = [
        f"{a} ({FLOORS[FLOOR[_unit(a)]][0]}) imports {b} ({FLOORS[FLOOR[_unit(b)]][0]})"
        for a, targets in GRAPH.items()
        for b in targets
        if FLOOR[_unit(b)] > FLOOR[_unit(a)]
    ]
    assert upward == []


def test_the_import_graph_has_no_cycle():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    assert cycles == []


def test_max_sat_stands_beside_the_classifiers():
    """The Max-SAT room imports neither the classifiers nor their base, and
    nothing below it imports Max-SAT (a clause goes down, never back up)."""
    classifiers = {"_base", "_disjunct", "_tree_classifier", "ensemble"}
    maxsat = [m for m in GRAPH if _unit(m) == "maxsat"]
    assert [(m, b) for m in maxsat for b in GRAPH[m] if _unit(b) in classifiers] == []
    below = [m for m in GRAPH if FLOOR[_unit(m)] < FLOOR["maxsat"]]
    assert [(m, b) for m in below for b in GRAPH[m] if _unit(b) == "maxsat"] == []


def test_no_module_is_over_450_lines():
    """One concept per module, small enough to read in one sitting (issue
    30's house: the tree, the base, the disjunct learner, Max-SAT, the
    forest, the engine, datasets and experiments were split to keep it)."""
    sizes = {
        m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in MODULES.items()
    }
    assert {m: n for m, n in sizes.items() if n > 450} == {}


def test_no_private_name_is_imported_across_modules():
    """``from x import _name`` from another module of the package: a name
    that two modules share is public in its module (issue 30). Private
    submodules (``from . import _streams``) are modules, not names."""
    crossing = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not (
                node.level or (node.module or "").startswith(PACKAGE)
            ):
                continue
            source = _absolute(module, path, node)
            crossing += [
                f"{module}: from {source} import {a.name}"
                for a in node.names
                if a.name.startswith("_")
                and not a.name.startswith("__")
                and f"{source}.{a.name}" not in MODULES
            ]
    assert crossing == []


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The module an ``ImportFrom`` in ``module`` (file ``path``) reads from."""
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def test_walk_packages_finds_the_same_modules():
    """The source walk and Python's own see the same modules."""
    walked = {PACKAGE} | {
        info.name for info in pkgutil.walk_packages([str(ROOT)], prefix=f"{PACKAGE}.")
    }
    assert walked == set(MODULES)


def test_the_tree_picks_its_player_from_the_table():
    """Each regret mode is a player class of ``PLAYERS`` (no branch on the
    mode in the estimator or its views)."""
    from sklearn_localregret._tree import PLAYERS, TreePlayer

    assert set(PLAYERS) == {"external", "swap"}
    assert all(issubclass(cls, TreePlayer) for cls in PLAYERS.values())
    for unit in ("_tree_classifier", "_tree.views"):
        path = MODULES[f"{PACKAGE}.{unit}"]
        assert "regret ==" not in path.read_text(encoding="utf-8"), unit

"""A flattened decision tree as text, in scikit-learn's ``export_text`` format.

:func:`~sklearn_localregret.locality.decision_tree.export_text` flattens a
tree (:func:`~sklearn_localregret.locality.decision_tree.compile_tree`) and
renders its pre-order node arrays here. The walk keeps its own stack, so a tree
of any depth renders (a recursive walk stops near Python's recursion limit).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["branch_conditions", "render_tree"]


def branch_conditions(
    v: int,
    feature_names: Sequence[str] | None = None,
    threshold: float = 0.5,
    decimals: int = 2,
    tests: Sequence[tuple] | None = None,
) -> tuple[str, str]:
    """What the false and the true branch of test ``v`` say.

    The parameters are those of
    :func:`~sklearn_localregret.locality.decision_tree.export_text`.

    Examples
    --------
    >>> branch_conditions(0, ["age"], tests=[(0, 42.5, "missing_passes")])
    ('age <= 42.50', 'age >  42.50 or missing')
    """
    j, t, *how = (v, threshold) if tests is None else tests[v]
    x = f"feature_{j}" if feature_names is None else str(feature_names[j])
    if how == ["equals"]:
        if t is None:
            return f"{x} is not missing", f"{x} is missing"
        return f"{x} != {t}", f"{x} == {t}"
    false, true = f"{x} <= {t:.{decimals}f}", f"{x} >  {t:.{decimals}f}"
    if how == ["missing_fails"]:
        false += " or missing"
    elif how == ["missing_passes"]:
        true += " or missing"
    return false, true


def render_tree(
    test: Sequence[int],
    label: Sequence[int],
    true_child: Sequence[int],
    false_child: Sequence[int],
    feature_names: Sequence[str] | None = None,
    class_names: Sequence | None = None,
    threshold: float = 0.5,
    decimals: int = 2,
    tests: Sequence[tuple] | None = None,
) -> str:
    """The text of a tree given as pre-order node arrays (node 0: the root).

    ``test`` is each node's test (-1 at leaves), ``label`` its class index
    (-1 at internal nodes), ``true_child`` and ``false_child`` its children's
    node indices; the other parameters are those of
    :func:`~sklearn_localregret.locality.decision_tree.export_text`. The
    false branch comes first, as scikit-learn puts its left child first.

    Examples
    --------
    >>> print(render_tree([0, -1, -1], [-1, 1, 0], [1, -1, -1], [2, -1, -1]))
    |--- feature_0 <= 0.50
    |   |--- class: 0
    |--- feature_0 >  0.50
    |   |--- class: 1
    """
    lines: list[str] = []
    # A line to write (str), or a node to render at an indent (int pair);
    # pushed in reverse so that they pop in the order they are written.
    stack: list[str | tuple[int, int]] = [(0, 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            lines.append(item)
            continue
        i, indent = item
        prefix = "|   " * indent + "|--- "
        if test[i] < 0:
            c = label[i] if class_names is None else class_names[label[i]]
            lines.append(f"{prefix}class: {c}")
            continue
        false, true = branch_conditions(
            test[i], feature_names, threshold, decimals, tests
        )
        stack += [(true_child[i], indent + 1), prefix + true]
        stack += [(false_child[i], indent + 1), prefix + false]
    return "\n".join(lines)

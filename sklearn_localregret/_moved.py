"""Modules that moved, still importable under their old names for saved files.

A pickle or skops file names the module each class was defined in
(``sklearn_localregret._maxsat.OnlineMaxSAT``), so a model saved before a move
must still find that module. :data:`MOVED` maps every old module path to the
modules now holding its names; :func:`install_moved_modules`, run when the
package is imported, registers each old path as a small module that forwards
every attribute to the new ones (imported on first use).
:func:`~sklearn_localregret.persistence.trusted_types` trusts the old names
of our classes too (:func:`old_names`). New code imports the new paths.
"""

from __future__ import annotations

import importlib
import sys
import types

__all__ = ["MOVED", "install_moved_modules", "old_names"]

_PACKAGE = "sklearn_localregret"

# Old module path -> the modules now holding its public names, in the order
# they are searched. The Max-SAT room moved into maxsat/ (issue 30).
MOVED: dict[str, tuple[str, ...]] = {
    f"{_PACKAGE}._maxsat": (f"{_PACKAGE}.maxsat.online",),
    f"{_PACKAGE}._dimacs": (f"{_PACKAGE}.maxsat.formula", f"{_PACKAGE}.maxsat.reading"),
    f"{_PACKAGE}._dimacs_reader": (f"{_PACKAGE}.maxsat.dimacs",),
    f"{_PACKAGE}._clause_matrix": (f"{_PACKAGE}.maxsat.clause_matrix",),
    f"{_PACKAGE}._solve": (f"{_PACKAGE}.maxsat.search", f"{_PACKAGE}.maxsat.command"),
    f"{_PACKAGE}.baselines.walksat": (f"{_PACKAGE}.maxsat.walksat",),
    f"{_PACKAGE}.locality.clause_rounds": (f"{_PACKAGE}.maxsat.rounds",),
}


def _forwarding_module(old: str, targets: tuple[str, ...]) -> types.ModuleType:
    module = types.ModuleType(old, f"Moved: see {', '.join(targets)}.")

    def __getattr__(name: str):
        if not name.startswith("__"):
            for target in targets:
                value = getattr(importlib.import_module(target), name, module)
                if value is not module:
                    return value
        raise AttributeError(f"module {old!r} has no attribute {name!r}")

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    return module


def install_moved_modules() -> None:
    """Register every old module path of :data:`MOVED` in ``sys.modules``.

    An old path already imported (or a real module there) is left alone. The
    parent package gets the module as an attribute, unless that name is
    taken: ``sklearn_localregret.baselines.walksat`` stays the function.
    """
    for old, targets in MOVED.items():
        if old in sys.modules:
            continue
        module = _forwarding_module(old, targets)
        sys.modules[old] = module
        parent, _, child = old.rpartition(".")
        if parent in sys.modules and not hasattr(sys.modules[parent], child):
            setattr(sys.modules[parent], child, module)


def old_names(cls) -> list[str]:
    """The names a class (or function) had in saved files before its module moved.

    Examples
    --------
    >>> from sklearn_localregret import OnlineMaxSAT
    >>> old_names(OnlineMaxSAT)
    ['sklearn_localregret._maxsat.OnlineMaxSAT']
    """
    return [
        f"{old}.{cls.__qualname__}"
        for old, targets in MOVED.items()
        if cls.__module__ in targets
    ]

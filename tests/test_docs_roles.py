"""Cross-references of the docs and docstrings hold their target on one line.

Sphinx keeps a line break inside a role's target (``:func:`~pkg.mod.`` at
the end of one line, ``name`` at the start of the next): the reference
never resolves and renders as dead text, and without ``nitpicky`` the
build says nothing (66 such references were found that way). A role with
an explicit title (``:meth:`title <target>```) may break in its title.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_BROKEN = re.compile(
    r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|ref|doc|term)"
    r":`([^`<]*\n[^`<]*)`"
)


def _sources() -> list[Path]:
    docs = [p for p in (ROOT / "docs").rglob("*.rst") if "_build" not in p.parts]
    return sorted(docs) + sorted((ROOT / "sklearn_localregret").rglob("*.py"))


def broken_roles(text: str) -> list[tuple[int, str]]:
    """``(line, role)`` of every role whose target spans a line break."""
    return [
        (text.count("\n", 0, match.start()) + 1, match.group(0))
        for match in _BROKEN.finditer(text)
    ]


def test_the_pattern_finds_a_broken_role_and_passes_sound_ones():
    broken = "see (:func:`~sklearn_localregret.engine.\n    stationary_from_root`)"
    assert broken_roles(broken) == [(1, broken[5:-1])]
    sound = (
        ":func:`~sklearn_localregret.engine.stationary_from_root`, and\n"
        ":meth:`RegretTable.update_entries\n<sklearn_localregret.engine."
        "RegretTable.update_entries>`"
    )
    assert broken_roles(sound) == []


def test_no_role_breaks_its_target():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {role!r}"
        for path in _sources()
        for line, role in broken_roles(path.read_text(encoding="utf-8"))
    ]
    assert not found, "roles broken across lines:\n" + "\n".join(found)

"""Integer child links between the rows of a table keyed by paths.

The decision-tree sites of a
:class:`~sklearn_localregret.engine.StumpRegretTable` are keyed by *paths*,
tuples of ``(test, branch)`` pairs from the root. Compiled walks cannot hash
tuples; they follow :attr:`PathIndex.child` instead:
``child[row, test, branch]`` is the table row of the path that extends
``row``'s path by ``(test, branch)``, or -1 if that path has no row (its site
has never been played: all its regrets are 0).
"""

from __future__ import annotations

import threading
from typing import cast

import numpy as np

from .keyed_rows import grown_capacity
from .stump_table import StumpRegretTable

__all__ = ["PathIndex"]


class PathIndex:
    """The child rows of every row of a path-keyed table, as an int array.

    New table rows are indexed by :meth:`update`; a row may enter before its
    parent path has a row (it is linked when the parent enters). The index is
    derived from the table's keys: it is never saved, and a table rebuilds it
    on demand. Tables keyed by paths only grow (rows are never forgotten).

    Parameters
    ----------
    table : StumpRegretTable
        Row keys are paths: tuples of ``(test, branch)``, ``branch`` in {0, 1}.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.engine import StumpRegretTable
    >>> table = StumpRegretTable(n_classes=2, n_tests=3)
    >>> root, below = table.row(()), table.row(((2, 1),))
    >>> index = PathIndex(table)
    >>> index.update()
    >>> int(index.child[root, 2, 1]), int(index.child[root, 2, 0])
    (1, -1)
    """

    def __init__(self, table: StumpRegretTable):
        self.table = table
        self.child = np.full((8, max(table.n_tests, 1), 2), -1, dtype=np.int32)
        self._indexed = 0  # table rows already linked to their parents
        self._orphans: dict = {}  # parent path -> rows waiting for it
        self._new_parents: list[int] = []  # rows that gained a child
        # Concurrent readers may index new rows at once: one at a time, or a
        # row would be linked twice.
        self._lock = threading.Lock()

    def __getstate__(self):
        return {"table": self.table}

    def __setstate__(self, state):
        self.__init__(state["table"])

    @property
    def root(self) -> int:
        """Row of the empty path (-1 before the root site has one)."""
        return self.table.find(())

    def update(self) -> None:
        """Link the rows the table gained since the last call; grow with it."""
        table = self.table
        if self._indexed == table.n_rows and self.child.shape[1] >= table.n_tests:
            return
        with self._lock:
            if self._indexed == table.n_rows and self.child.shape[1] >= table.n_tests:
                return  # another thread did it
            self._grow(table.n_rows, table.n_tests)
            # A stump table's keys are paths: tuples of (test, branch) edges.
            # (Its own list, read only: a copy per round would cost O(rows).)
            keys = cast("list[tuple]", table._keys)
            for row in range(self._indexed, len(keys)):  # all, before linking any
                if keys[row]:
                    test, branch = keys[row][-1]
                    if not (0 <= test < table.n_tests and branch in (0, 1)):
                        raise ValueError(
                            f"row {row}'s path {keys[row]!r} ends in test {test!r} "
                            f"branch {branch!r}: not one of the table's "
                            f"{table.n_tests} tests and branches 0, 1"
                        )
            child = self.child
            for row in range(self._indexed, len(keys)):
                key = keys[row]
                for orphan in self._orphans.pop(key, ()):
                    test, branch = keys[orphan][-1]
                    child[row, test, branch] = orphan
                    self._new_parents.append(row)
                if key:
                    parent = table.find(key[:-1])
                    if parent >= 0:
                        test, branch = key[-1]
                        child[parent, test, branch] = row
                        self._new_parents.append(parent)
                    else:
                        self._orphans.setdefault(key[:-1], []).append(row)
            self._indexed = len(keys)

    def has_new_parents(self) -> bool:
        """Whether rows gained children since :meth:`take_new_parents` (or
        will, once the table's new rows are indexed)."""
        return bool(self._new_parents) or self._indexed != self.table.n_rows

    def take_new_parents(self) -> list[int]:
        """The rows that gained a child since the last call (indexed first)."""
        self.update()
        parents, self._new_parents = self._new_parents, []
        return parents

    def _grow(self, n_rows: int, n_tests: int) -> None:
        rows, tests = self.child.shape[:2]
        if n_rows <= rows and n_tests <= tests:
            return
        grown = np.full(
            (
                rows if n_rows <= rows else grown_capacity(rows, n_rows),
                tests if n_tests <= tests else max(n_tests, 2 * tests),
                2,
            ),
            -1,
            dtype=np.int32,
        )
        grown[:rows, :tests] = self.child
        self.child = grown  # readers holding the old array still read it whole

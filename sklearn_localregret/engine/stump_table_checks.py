"""What :class:`~sklearn_localregret.engine.StumpRegretTable` checks of its
callers' arguments before its compiled code reads them.

The update and the model reads index the table's arrays with the rows and
shapes they are given: a row out of range read (or wrote) past the arrays
or into another row, and an update of the wrong shapes failed half-way,
its leaf regrets written and the row's cached weights stale.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_model_row", "check_update"]


def check_update(
    table, rows, leaf_gains, leaf_mask, true_counts, class_counts, correct, test_mask
) -> None:
    """Refuse an update whose rows or shapes do not fit ``table``, before
    any of it is written."""
    n, k, t = rows.shape[0], table.n_classes, table.n_tests
    if n and not (0 <= rows.min() and rows.max() < table.n_rows):
        raise IndexError(f"a table row out of range (the table has {table.n_rows})")
    expected = {
        "leaf_gains": (leaf_gains, (n, table.n_leaves)),
        "leaf_mask": (leaf_mask, (n, table.n_leaves)),
        "true_counts": (true_counts, (n, t, k)),
        "class_counts": (class_counts, (n, k)),
        "correct": (correct, (n,)),
        "test_mask": (test_mask, (n, t)),
    }
    for name, (array, shape) in expected.items():
        if np.shape(array) != shape:
            raise ValueError(f"{name} has shape {np.shape(array)}; expected {shape}")


def check_model_row(table, row: int) -> None:
    """Refuse a model read at a row ``table`` has not (``find``'s -1 for a
    key not in the table included), or of a table with no models."""
    if not table.models:
        raise ValueError("this table keeps no naive Bayes models")
    if not 0 <= row < table.n_rows:
        raise IndexError(f"table row {row} out of range ({table.n_rows} rows)")

"""Whether a block of rows can bring a test in, compiled.

A learner asks it once per block of rounds (every call, when a stream comes
a few rows at a time) once its thresholds are complete; numpy's masks and
gathers on a few rows cost tens of microseconds there, a loop over the cells
well under one.
"""

from __future__ import annotations

from ..engine.compiled.jit import kernel

__all__ = ["may_bring_tests"]


@kernel
def may_bring_tests(X, categorical, missing, coded):
    """Whether a row of ``X`` shows a numeric column's first missing value
    (NaN where ``missing`` is false) or a category code without its test
    (``coded[j, c]`` false, or ``c`` past ``coded``'s width) in a
    ``categorical`` column; a missing category brings none."""
    n_rows, n_columns = X.shape
    width = coded.shape[1]
    for i in range(n_rows):
        for j in range(n_columns):
            value = X[i, j]
            if categorical[j]:
                if value != value:  # missing
                    continue
                # A code that is not a small whole number: True, and the
                # catalogue's observe says what is wrong (never an index).
                if not 0.0 <= value < 1e15 or value != int(value):
                    return True
                code = int(value)
                if code >= width or not coded[j, code]:
                    return True
            elif value != value and not missing[j]:
                return True
    return False

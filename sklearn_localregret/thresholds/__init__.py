"""Candidate tests on the columns of a row: thresholds, missing values, categories.

The tree learner's locality graph splits on *tests*: boolean questions about a
row. A numeric feature ``j`` offers the tests ``x_j > t`` for a few candidate
thresholds ``t``; a 0/1 feature is the special case with the single test
``x_j > 0.5``. Where the candidates come from is a small, pluggable choice
(as River keeps it in its ``tree/splitter`` components): one *source* per
module behind :class:`ThresholdSource`, and :class:`ThresholdTests`, the
catalogue of the tests that have entered so far, numbered in order of entry.

* :class:`QuantileThresholds` -- quantiles of the stream's first rows, refined
  at growing checkpoints (the default).
* :class:`FixedThresholds` -- one fixed threshold for every feature (the tree
  learner's ``binarize``).
* :class:`AdmittedColumns` -- wide input (hashed text): a bounded number of
  columns, admitted as the rows show they separate the labels, one test each.

Missing values and categories are the catalogue's part: a numeric column that
has shown a missing value (NaN) gets each threshold twice, missing rows failing
or passing it, and a categorical column gets one test ``x_j == c`` per category
met, up to a bound. :class:`ColumnEncoder` turns a table's columns (pandas
categories, strings) into the numbers the tests read.

This package knows no estimator: it maps rows to test outcomes.
"""

from ._base import ThresholdSource
from .admitted import AdmittedColumns
from .catalog import EQUALS, GREATER, GREATER_OR_MISSING, ThresholdTests
from .columns import ColumnEncoder
from .fixed import FixedThresholds
from .quantile import QuantileThresholds

__all__ = [
    "AdmittedColumns",
    "EQUALS",
    "GREATER",
    "GREATER_OR_MISSING",
    "ColumnEncoder",
    "FixedThresholds",
    "QuantileThresholds",
    "ThresholdSource",
    "ThresholdTests",
]

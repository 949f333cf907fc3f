"""The compiled kernels also run as plain Python (``NUMBA_DISABLE_JIT=1``).

That is how a kernel is debugged (breakpoints, coverage, tracebacks with
lines): the exactness tests must pass that way too. Running all of them as
Python takes minutes, so this runs a selection that calls every kernel --
the label walk against enumeration, the pair sums against numpy, the
chain solve against exact fractions, a table row's update against the entry
update, the recorded rounds of the one-row configuration, and the disjunct
learner's clocks, seeded uniforms and one-row rounds against numpy -- in a fresh
interpreter with the JIT switched off.
"""

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

SELECTION = [
    "engine/test_hierarchical_labels.py::test_matches_enumeration",
    "engine/test_compiled_kernels.py::test_pair_sum_kernels_match_numpy",
    "engine/test_chain_solve.py::test_hand_computed_chains",
    "engine/test_chain_solve.py::test_matches_exact_fractions",
    "engine/test_regret_table.py::"
    "test_update_row_equals_update_entries_and_says_when_an_edge_moved",
    "test_tree_rounds_fixture.py::test_rounds_match_the_python_engine[one-row-rounds]",
    # The disjunct learner's clocks, uniforms and one-row rounds.
    "engine/test_clock_draw.py::test_the_compiled_draw_is_the_numpy_draw[3]",
    "engine/test_clock_draw.py::test_the_averaged_probabilities_are_numpy_s[1]",
    "engine/test_clock_draw.py::test_seeded_uniform_columns_are_numpy_s[5]",
    "locality/test_disjunct_kernels.py::"
    "test_compiled_removal_set_rounds_are_the_numpy_rounds[16-0.9-0.3-1]",
    # A one-row prediction's checks of values, outcomes and stale slots.
    "test_one_row_predict.py::test_finite_enough_is_numpys",
    "test_one_row_predict.py::test_stale_slots_is_numpys",
    "test_one_row_predict.py::test_outcomes_of_every_kind_are_numpys",
    # A wide table's shortcuts: class totals, residual passes, pool sizing.
    "engine/test_wide_shortcuts.py",
    # A column's thresholds read as one binned feature.
    "engine/test_threshold_bins.py::test_the_decreasing_fit_is_isotonic_regression[0]",
    "engine/test_threshold_bins.py::test_a_chain_reads_the_bin_of_the_value",
]


def test_exactness_tests_pass_with_the_jit_disabled():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            *SELECTION,
        ],
        cwd=TESTS,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert " passed" in result.stdout and "failed" not in result.stdout

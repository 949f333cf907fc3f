"""The engine's public tables refuse what does not fit them, before writing.

A probe found writes into other rows, past the arrays (segfaults, heap
corruption) and half-done updates through these documented entry points.
"""

import pickle

import numpy as np
import pytest

from sklearn_localregret.engine import RegretTable, StumpRegretTable
from sklearn_localregret.engine.compiled.pair_sums import refresh_content
from sklearn_localregret.engine.merge import add_rows


def _table():
    table = RegretTable(width=2)  # 3 rows, capacity for 8
    for key in "abc":
        table.update_entries([table.row(key)], [1], [1.0])
    return table


@pytest.mark.parametrize(
    "rows, cols, gains, error",
    [
        ([0], [2], [5.0], IndexError),  # a column past the width (was row 1's)
        ([5], [0], [7.0], IndexError),  # a row in the spare capacity
        ([-1], [0], [7.0], IndexError),  # wrapped to the last spare row
        ([10**9], [0], [1.0], IndexError),  # segfaulted
        ([0, 1], [0, 1], [1.0], ValueError),  # gains read past their end
        ([0], [0, 1], [1.0, 2.0], ValueError),
    ],
)
def test_update_entries_refuses_entries_off_the_table(rows, cols, gains, error):
    table = _table()
    before = pickle.dumps(table)
    with pytest.raises(error):
        table.update_entries(rows, cols, gains)
    assert pickle.dumps(table) == before
    assert table.row("d") == 3 and table.biased[3].tolist() == [0.0, 0.0]


def test_the_other_row_updates_refuse_rows_off_the_table():
    table = _table()
    before = pickle.dumps(table)
    with pytest.raises(IndexError):
        table.update_row(0, np.ones(4))  # spilled into row 1
    with pytest.raises(IndexError):
        table.update_row(3, np.ones(2))
    with pytest.raises(IndexError):
        table.update_sequence([0, 5], [0, 0], [1.0, 1.0])
    with pytest.raises(IndexError):
        table.update_sequence([0], [2], [1.0])
    with pytest.raises(IndexError):
        table.update_rows([-1], np.ones((1, 2)), np.ones((1, 2), bool))
    with pytest.raises(IndexError):
        table.clear_rows([3])
    assert pickle.dumps(table) == before


def _stump_table():
    table = StumpRegretTable(n_classes=2, n_tests=1, model_reads=True)
    row = table.row(())
    table.update([row], **_round(np.array([[0.0, 2.0]])))
    return table, row


def _round(leaf_gains, test_mask=None):
    return dict(
        leaf_gains=leaf_gains,
        leaf_mask=np.array([[False, True]]),
        true_counts=np.array([[[0.0, 1.0]]]),
        class_counts=np.array([[0.0, 2.0]]),
        correct=np.array([0.0]),
        test_mask=np.array([[True]]) if test_mask is None else test_mask,
    )


def test_a_stump_update_of_the_wrong_shapes_writes_nothing():
    """It used to write the leaf gains, then fail, the row's cached weights
    left stale."""
    table, row = _stump_table()
    before = pickle.dumps(table)
    with pytest.raises(ValueError, match="test_mask has shape"):
        table.update([row], **_round(np.array([[0.0, 5.0]]), np.array([True, True])))
    with pytest.raises(IndexError, match="out of range"):
        table.update([4], **_round(np.array([[0.0, 5.0]])))
    assert pickle.dumps(table) == before
    assert table.leaf_regrets(row).tolist() == [0.0, 2.0]
    assert table.site(row)[0].tolist() == [0.0, 2.0, 4.0]


def test_a_model_read_at_a_row_the_table_has_not_is_refused():
    table, _ = _stump_table()
    outcomes = np.zeros((1, 1), dtype=bool)
    for row in (table.find("missing"), 10**9):  # -1 read a spare row; segfault
        with pytest.raises(IndexError, match="out of range"):
            table.row_model_proba(row, outcomes)
        with pytest.raises(IndexError, match="out of range"):
            table.row_model_labels(row, outcomes)


def test_refresh_content_refuses_arrays_whose_axes_disagree():
    """Content narrower than the leaf colours corrupted the heap; fewer
    classes in ``false`` or the model cache read or wrote past them."""
    R, T, K = 4, 3, 2

    def arrays(**changed):
        base = dict(
            leaf=np.ones((R, 2, 3)),
            true=np.ones((R, T, K)),
            false=np.ones((R, T, K)),
            cost=np.zeros((R, 2, T)),
            versions=np.ones(R, np.int64),
            seen=np.full(R, -1, np.int64),
            content=np.zeros((R, 3 + T)),
            cdf=np.zeros((R, 3 + T)),
            total=np.zeros(R),
            model_scale=np.ones(R),
            odds=np.zeros((R, 0, K)),
            base=np.zeros((R, 0)),
            partner=np.full(T, -1),
            next_threshold=np.full(T, -1),
        )
        base.update(changed)
        return base

    def call(a):
        refresh_content(
            a["leaf"], a["true"], a["false"], a["cost"], a["versions"], a["seen"],
            a["content"], a["cdf"], a["total"], R, T, a["model_scale"], a["odds"],
            a["base"], a["partner"], a["next_threshold"],
        )  # fmt: skip

    call(arrays())  # consistent arrays: refreshed
    for changed in (
        dict(content=np.zeros((R, 1)), cdf=np.zeros((R, 1))),
        dict(false=np.ones((R, T, 1))),
        dict(odds=np.zeros((R, T, 1)), base=np.zeros((R, 1))),
    ):
        a = arrays(**changed)
        with pytest.raises(ValueError, match="axes differ"):
            call(a)
        assert (a["seen"] == -1).all()


def test_add_rows_refuses_a_key_map_onto_one_key():
    """Two rows sent to one key added only one of them."""
    dst, src = RegretTable(width=1), RegretTable(width=1)
    src.update_entries([src.row("x")], [0], [1.0])
    src.update_entries([src.row("y")], [0], [2.0])
    with pytest.raises(ValueError, match="two keys of src to one key"):
        add_rows(dst, src, key_map=lambda key: "z")
    assert dst.n_rows == 0


@pytest.mark.parametrize("n", [np.nan, -3])
def test_a_table_refuses_to_start_a_negative_or_nan_number_of_rounds(n):
    table = RegretTable(width=1, discount=0.9)
    table.update_entries([table.row("x")], [0], [1.0])
    with pytest.raises(ValueError, match="rounds to start must be >= 0"):
        table.advance(n)
    assert table.biased.tolist() == [[1.0]] and table.clock.n_rounds == 0


def test_label_walks_refuse_a_root_label_or_outcomes_that_do_not_fit():
    """root_label 3 of 2 classes wrote past the output (10**9 segfaulted);
    outcomes narrower than the tests dropped the subtrees of those lacking."""
    from sklearn_localregret.engine import HierarchicalLabels, HierarchicalSampler

    table = StumpRegretTable(n_classes=2, n_tests=2)
    table.row(())
    labels, sampler = HierarchicalLabels(table), HierarchicalSampler(table)
    rows = np.zeros((2, 2), dtype=bool)
    for label in (3, -1, 10**9):
        with pytest.raises(ValueError, match="root_label must be a class"):
            labels.probabilities(rows, root_label=label)
        with pytest.raises(ValueError, match="root_label must be a leaf colour"):
            sampler.sample(np.random.default_rng(0), root_label=label)
    for outcomes in (np.zeros((2, 1), bool), np.zeros(2, bool)):
        with pytest.raises(ValueError, match="a column per test"):
            labels.probabilities(outcomes)
    assert labels.probabilities(rows, root_label=1).tolist() == [[0.0, 1.0]] * 2


def _update_leaf(table, key, gain):
    table.update(
        [table.row(key)], np.array([[0.0, gain]]), np.array([[False, True]]),
        np.zeros((1, 1, 2)), np.zeros((1, 2)), np.zeros(1), np.zeros((1, 1), bool),
    )  # fmt: skip


def test_a_snapshot_has_caches_of_its_own():
    """A snapshot shared the table's cached weights: after the live table
    forgot a row (renumbering them), each read the other's."""
    from sklearn_localregret.engine.merge import snapshot

    live = StumpRegretTable(n_classes=2, n_tests=1)
    _update_leaf(live, "A", 1.0)
    _update_leaf(live, "B", 2.0)
    live.refresh()
    snap = snapshot(live)
    live.forget([0])  # B to row 0, at the version A had
    assert snap.site(snap.find("A"))[0].tolist() == [0.0, 1.0, 0.0]
    _update_leaf(live, "B", 5.0)
    assert live.site(live.find("B"))[0].tolist() == [0.0, 7.0, 0.0]
    assert snap.site(snap.find("B"))[0].tolist() == [0.0, 2.0, 0.0]


class _Graph:
    """A two-edge rate graph whose rates the test sets."""

    root = "r"

    def __init__(self, rates):
        self.rates = rates

    def level(self, vertex):
        return 0 if vertex == "r" else 1

    def positive_out_edges(self, vertex):
        return (["a", "b"], np.asarray(self.rates)) if vertex == "r" else ([], [])


def test_a_chain_sampler_refuses_bad_rates_until_they_are_mended():
    """An infinite rate gave numpy's IndexError once, then the stale
    distribution; negative rates were dropped or taken by magnitude."""
    from sklearn_localregret.engine import FiniteChainSampler

    graph = _Graph([1.0, 3.0])
    sampler = FiniteChainSampler(graph)
    assert sampler.distribution()[1].tolist() == [0.25, 0.75]
    for bad in ([np.inf, 1.0], [np.nan, 1.0], [-1.0, -3.0], [1.0]):
        graph.rates = bad
        sampler.invalidate("r")
        for _ in range(2):  # and again: never the stale answer
            with pytest.raises(ValueError, match="rate"):
                sampler.distribution()
    graph.rates = [1.0, 1.0]
    assert sampler.distribution()[1].tolist() == [0.5, 0.5]


def test_a_path_ending_off_the_tests_is_refused_before_any_link():
    from sklearn_localregret.engine import PathIndex

    for key in (((-1, 1),), ((7, 1),), ((0, 2),)):
        table = StumpRegretTable(n_classes=2, n_tests=3)
        table.row(())
        table.row(key)
        index = PathIndex(table)
        with pytest.raises(ValueError, match="not one of the table's 3 tests"):
            index.update()
        assert (index.child == -1).all()


def test_product_sites_refuse_bad_rates_and_do_not_overflow():
    from sklearn_localregret.engine import (
        binary_site_probabilities,
        sample_product,
        site_distributions,
    )

    for bad in (
        np.array([[-1.0, 2.0]]),
        np.array([[np.nan, 1.0]]),
        np.array([[np.inf, 1.0]]),
    ):
        with pytest.raises(ValueError, match="finite and non-negative"):
            site_distributions(bad, np.array([0]))
        with pytest.raises(ValueError, match="finite and non-negative"):
            binary_site_probabilities(bad[0], np.ones(2))
    huge = np.array([[1e308, 1e308]])
    assert site_distributions(huge, np.array([0])).tolist() == [[0.5, 0.5]]
    assert binary_site_probabilities(huge[0, :1], huge[0, 1:]).tolist() == [0.5]
    with pytest.raises(ValueError, match="a content at least"):
        sample_product(np.zeros((2, 0)), np.random.default_rng(0))


def test_a_sampler_roots_at_the_model_leaf_and_a_generator_is_read_as_rates():
    """The model leaf (colour K) is a root the sampler draws itself; a
    generator's negative diagonal is ignored, as documented."""
    from scipy import sparse

    from sklearn_localregret.engine import HierarchicalSampler
    from sklearn_localregret.engine.finite_chain import stationary_from_root

    table = StumpRegretTable(n_classes=2, n_tests=1, leaf_model=True)
    table.row(())
    sampler = HierarchicalSampler(table)
    assert sampler.sample(np.random.default_rng(0), root_label=2) == ("leaf", 2)
    rates = np.array([[0, 1, 3, 0], [0, 0, 0, 0], [0, 0, 0, 2], [0, 0, 1, 0.0]])
    generator = rates - np.diag(rates.sum(axis=1))
    for q in (rates, generator):
        pi = stationary_from_root(sparse.csr_matrix(q))
        np.testing.assert_allclose(pi, [0, 0.25, 0.25, 0.5])


def test_product_sites_are_the_plain_ratios_on_ordinary_rates():
    from sklearn_localregret.engine import binary_site_probabilities, site_distributions

    rates = np.random.default_rng(0).random((100, 8))
    expected = rates / rates.sum(axis=1, keepdims=True)
    assert (site_distributions(rates, np.zeros(100, int)) == expected).all()
    assert binary_site_probabilities(np.array([1e-310, 1.0]), 3e-310).tolist() == [
        0.75,
        3e-310 / (1.0 + 3e-310),
    ]

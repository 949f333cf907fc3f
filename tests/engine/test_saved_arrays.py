"""Packed arrays (what saved models store) come back bit for bit."""

import pickle

import numpy as np
import pytest

from sklearn_localregret.engine.saved_arrays import (
    is_packed,
    pack,
    pack_residual,
    unpack,
    unpack_residual,
)


def _bits(array):
    return array.view(np.uint8) if array.dtype != bool else array


ARRAYS = {
    "floats with -0, inf, nan, subnormals": np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1 / 3, -1e300] * 50
    ).reshape(20, 5, 4),
    "repeated sums": np.repeat(np.random.default_rng(0).normal(size=7), 400),
    "int64 counts": np.arange(-300, 300, dtype=np.int64).reshape(3, 200),
    "int64 beyond int32": np.array([0, 2**40, -(2**40)] * 200, dtype=np.int64),
    "uint64 words": np.array([0, 2**64 - 1, 12345] * 100, dtype=np.uint64),
    "intp labels": np.array([0, 1, 1, 0] * 125, dtype=np.intp),
    "bool outcomes": np.random.default_rng(1).random((500, 117)) < 0.3,
    "odd bool count": np.array([True, False, True]),
    "empty": np.zeros((500, 0), dtype=bool),
    "empty floats": np.zeros((0, 3)),
    "float32": np.linspace(0, 1, 1000, dtype=np.float32),
}


@pytest.mark.parametrize("name", ARRAYS)
def test_pack_round_trips_bit_for_bit(name):
    array = ARRAYS[name]
    packed = pickle.loads(pickle.dumps(pack(array)))
    assert is_packed(packed)
    back = unpack(packed)
    assert back.dtype == array.dtype and back.shape == array.shape
    np.testing.assert_array_equal(_bits(back), _bits(array))
    assert back.flags.writeable


def test_packing_pays_where_it_should():
    outcomes = ARRAYS["bool outcomes"]
    assert pack(outcomes)["data"].nbytes <= outcomes.size // 8 + 1
    counts = ARRAYS["int64 counts"]
    assert pack(counts)["data"].nbytes <= counts.size * 2
    sums = ARRAYS["repeated sums"]
    assert pack(sums)["data"].nbytes < sums.nbytes // 20


def test_plain_arrays_pass_through_unpack():
    array = np.arange(5.0)
    assert unpack(array) is array and not is_packed(array)


def test_residual_round_trips_and_is_small_where_the_prediction_holds():
    rng = np.random.default_rng(2)
    array = rng.normal(size=(30, 40, 2))
    prediction = array.copy()
    prediction[::7] += 1e-3  # wrong in some places
    packed = pack_residual(array, prediction)
    back = unpack_residual(pickle.loads(pickle.dumps(packed)), prediction)
    np.testing.assert_array_equal(back.view(np.uint64), array.view(np.uint64))
    assert packed["data"].nbytes < array.nbytes // 4
    with pytest.raises(ValueError, match="prediction"):
        unpack_residual(packed, prediction[:-1])


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.update(shape=[10_000_000]),  # more than the bytes hold
        lambda p: p.update(shape=[3]),  # fewer
        lambda p: p.update(data=p["data"][:-5]),  # truncated
        lambda p: p.update(stored="<c16"),
        lambda p: p.pop("dtype"),
    ],
)
def test_damaged_records_are_a_value_error(damage):
    packed = pack(np.repeat(np.arange(10.0), 100))
    assert packed["deflated"]
    damage(packed)
    with pytest.raises(ValueError, match="damaged"):
        unpack(packed)

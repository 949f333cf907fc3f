"""The bundled UCI files: what each must hold, and reading one into a Bunch.

A :class:`_DatasetSpec` per dataset says what its CSV file looks like and how
to expose it; :func:`load_bundled` reads and checks the file and builds what the
loaders of :mod:`._uci_loaders` return. The CSV files are read with the
standard library (:mod:`csv`, :mod:`gzip`, :mod:`importlib.resources`); pandas
is imported only when ``as_frame=True``.
"""

import csv
import gzip
import io
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from ._base import boolean_encoder
from ._descr import (
    KR_VS_KP_DESCR,
    KR_VS_KP_FEATURE_NAMES,
    MUSHROOM_DESCR,
    NURSERY_DESCR,
)

DATA_MODULE = "sklearn_localregret.datasets.data"


@dataclass(frozen=True)
class _DatasetSpec:
    """What a bundled CSV file must look like and how to expose it."""

    name: str
    file_name: str
    header: tuple  # expected CSV header, in file order
    target_column: str  # name of the class column in ``header``
    feature_names: tuple  # exposed names of the non-target columns
    n_samples: int
    descr: str


_NURSERY_ATTRIBUTES = (
    "parents",
    "has_nurs",
    "form",
    "children",
    "housing",
    "finance",
    "social",
    "health",
)
_MUSHROOM_ATTRIBUTES = (
    "cap-shape",
    "cap-surface",
    "cap-color",
    "bruises",
    "odor",
    "gill-attachment",
    "gill-spacing",
    "gill-size",
    "gill-color",
    "stalk-shape",
    "stalk-root",
    "stalk-surface-above-ring",
    "stalk-surface-below-ring",
    "stalk-color-above-ring",
    "stalk-color-below-ring",
    "veil-type",
    "veil-color",
    "ring-number",
    "ring-type",
    "spore-print-color",
    "population",
    "habitat",
)

SPECS = {
    "nursery": _DatasetSpec(
        name="nursery",
        file_name="nursery.csv.gz",
        header=_NURSERY_ATTRIBUTES + ("classification",),
        target_column="classification",
        feature_names=_NURSERY_ATTRIBUTES,
        n_samples=12960,
        descr=NURSERY_DESCR,
    ),
    "mushroom": _DatasetSpec(
        name="mushroom",
        file_name="mushroom.csv.gz",
        header=("edibility",) + _MUSHROOM_ATTRIBUTES,
        target_column="edibility",
        feature_names=_MUSHROOM_ATTRIBUTES,
        n_samples=8124,
        descr=MUSHROOM_DESCR,
    ),
    "kr-vs-kp": _DatasetSpec(
        name="kr-vs-kp",
        file_name="kr-vs-kp.csv.gz",
        # The bundled header names the attributes V1..V36; their order is the
        # one documented by UCI, so they are exposed under the UCI names.
        header=tuple(f"V{i}" for i in range(1, 37)) + ("target",),
        target_column="target",
        feature_names=KR_VS_KP_FEATURE_NAMES,
        n_samples=3196,
        descr=KR_VS_KP_DESCR,
    ),
}


@lru_cache(maxsize=None)
def _read_csv(file_name):
    """Header and rows of a bundled gzipped CSV, as tuples of str.

    The result is cached; it is immutable, and every loader call builds new
    arrays from it. Empty lines (nursery's file ends with one) are skipped.
    """
    path = resources.files(DATA_MODULE) / file_name
    with path.open("rb") as raw, gzip.open(raw, "rb") as unzipped:
        text = io.TextIOWrapper(unzipped, encoding="utf-8", newline="")
        reader = csv.reader(text)
        header = tuple(next(reader))
        rows = []
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                raise ValueError(
                    f"{file_name}, line {reader.line_num}: expected "
                    f"{len(header)} fields, got {len(row)}"
                )
            rows.append(tuple(row))
    return header, tuple(rows)


def _check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {value!r}")


def _import_pandas(caller):
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError(
            f"{caller}(as_frame=True) requires pandas, which is not installed. "
            "Install it with `pip install pandas`, or use as_frame=False "
            "(the default) to get NumPy arrays."
        ) from exc
    return pd


def load_bundled(spec, caller, *, return_X_y, as_frame, one_hot):
    _check_bool("return_X_y", return_X_y)
    _check_bool("as_frame", as_frame)
    _check_bool("one_hot", one_hot)

    header, rows = _read_csv(spec.file_name)
    if header != spec.header:
        raise ValueError(
            f"Unexpected header in {spec.file_name}: {list(header)}; "
            f"expected {list(spec.header)}"
        )
    if len(rows) != spec.n_samples:
        raise ValueError(
            f"{spec.file_name} has {len(rows)} rows; expected {spec.n_samples}"
        )

    table = np.array(rows, dtype=object)
    target_index = header.index(spec.target_column)
    feature_indices = [j for j in range(len(header)) if j != target_index]
    data = table[:, feature_indices]  # advanced indexing: a new array
    target = table[:, target_index].copy()
    target_names = np.unique(target)
    attribute_names = list(spec.feature_names)
    feature_names = list(attribute_names)

    encoder = None
    if one_hot:
        encoder = boolean_encoder(sparse_output=False)
        data = encoder.fit_transform(data)
        feature_names = [
            str(name) for name in encoder.get_feature_names_out(attribute_names)
        ]

    frame = None
    if as_frame:
        pd = _import_pandas(caller)
        if one_hot:
            data = pd.DataFrame(data, columns=feature_names)
        else:
            data = pd.DataFrame(
                {
                    name: pd.Categorical(data[:, j], categories=sorted(set(data[:, j])))
                    for j, name in enumerate(feature_names)
                }
            )
        target = pd.Series(
            pd.Categorical(target, categories=list(target_names)),
            name=spec.target_column,
        )
        frame = pd.concat([data, target], axis=1)

    if return_X_y:
        return data, target

    return Bunch(
        data=data,
        target=target,
        frame=frame,
        feature_names=feature_names,
        target_names=target_names,
        attribute_names=attribute_names,
        encoder=encoder,
        DESCR=spec.descr,
        filename=spec.file_name,
        data_module=DATA_MODULE,
    )

"""The columns of a table as the numbers the tests read: categories become codes."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array

from .column_values import (
    CATEGORICAL,
    NUMERIC,
    UNKNOWN,
    as_array,
    infer_kind,
    is_category_dtype,
    is_label,
    is_missing,
    numbers_of,
)
from .known_codes import known_codes
from .saved_columns import (
    loaded_categories,
    loaded_number_flags,
    saved_categories,
    saved_number_flags,
)

__all__ = ["CATEGORICAL", "NUMERIC", "UNKNOWN", "ColumnEncoder"]


#: What an encoder reads off its kinds and indexes, kept until a column turns
#: categorical (ColumnEncoder._forget_kinds); never saved.
_KIND_CACHES = (
    "_n_categorical",
    "_categorical",
    "_not_categorical",
    "_getters",
    "_last_codes",
)


class ColumnEncoder:
    """Which columns are categorical, and the codes of their categories.

    A learner keeps one and saves it: the rows it reads are then float
    arrays, with NaN where a value is missing and, in a categorical column,
    the code of the value's category. A column's type is fixed by the first
    call in which it has a value: a pandas ``category`` column is categorical;
    a ``string`` or ``object`` column is categorical if its values are
    strings and numeric if they are numbers (a column mixing both is an
    error); numeric dtypes are numeric. A category gets the next code the
    first time it is learnt, up to ``max_categories`` per column (the missing
    value counts as one category of a categorical column); later ones, and
    any value unseen when predicting, get NaN, which matches no test.

    :meth:`encode` never changes the encoder it is called on: it returns the
    encoder to keep, a new one if learning added anything. A learner that
    keeps it only once the call's input passed every check is left exactly
    as it was by a call that fails.

    Parameters
    ----------
    max_categories : int, default=16
        Most categories per categorical column.

    Attributes
    ----------
    n_features : int or None
        Width of the rows (None before the first call).
    kinds : ndarray of int8 of shape (n_features,)
        ``UNKNOWN``, ``NUMERIC`` or ``CATEGORICAL`` for each column.
    categories : list
        Per column, the values of its categories in the order of their codes
        (None stands for the missing value); None for other columns.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([["red", 1.5], [None, 2.0], ["blue", None]], dtype=object)
    >>> encoded, encoder = ColumnEncoder().encode(X, learning=True)
    >>> encoded
    array([[0. , 1.5],
           [1. , 2. ],
           [2. , nan]])
    >>> encoder.categories
    [['red', None, 'blue'], None]
    >>> encoder.encode(np.array([["green", 3.0]], dtype=object), learning=False)[0]
    array([[nan,  3.]])
    """

    def __init__(self, max_categories: int = 16):
        self.max_categories = int(max_categories)
        self.n_features: int | None = None
        self.kinds = np.zeros(0, dtype=np.int8)
        self.categories: list = []
        # Categorical columns: whether their categories are numbers (a pandas
        # category of numbers) or labels; None until the first one.
        self.numbers: list = []
        self._index: list[dict | None] = []

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_index"]  # rebuilt from the categories
        for cache in _KIND_CACHES + ("_all_typed",):  # see _forget_kinds
            state.pop(cache, None)
        # A list a column (hashed text: a million) as arrays and the
        # categorical columns' lists only: skops wrote a node a None.
        if state.get("categories") is not None:
            state["categories"] = saved_categories(self.categories)
            state["numbers"] = saved_number_flags(self.numbers)
        return state

    def __setstate__(self, state):
        state = dict(state)
        if isinstance(state.get("categories"), dict):
            n = int(state["n_features"])
            state["categories"] = loaded_categories(state["categories"], n)
            state["numbers"] = loaded_number_flags(state["numbers"], n)
        self.__dict__.update(state)
        self._index = [
            None if values is None else {value: c for c, value in enumerate(values)}
            for values in self.categories
        ]

    @classmethod
    def numeric(cls, n_features: int, max_categories: int = 16) -> ColumnEncoder:
        """An encoder of ``n_features`` numeric columns."""
        encoder = cls(max_categories)
        encoder._start(n_features, NUMERIC)
        return encoder

    def _start(self, n_features: int, kind: int = UNKNOWN) -> None:
        self.n_features = int(n_features)
        self.kinds = np.full(n_features, kind, dtype=np.int8)
        self._forget_kinds()
        self.__dict__.pop("_all_typed", None)
        self.categories = [None] * n_features
        self.numbers = [None] * n_features
        # A categorical column's code of each value (None for the others:
        # hashed text has a million numeric columns).
        self._index = [None] * n_features

    @property
    def categorical(self) -> np.ndarray:
        """Which columns are categorical, (n_features,) of bool; shared, not
        to be changed."""
        # Kept (every round of a root model asks) until a column turns
        # categorical (_forget_kinds).
        mask = self.__dict__.get("_categorical")
        if mask is None:
            mask = self._categorical = self.kinds == CATEGORICAL
        return mask

    @property
    def not_categorical(self) -> np.ndarray:
        """Which columns are not categorical, (n_features,) of bool (what the
        root models read as numbers); shared, not to be changed."""
        mask = self.__dict__.get("_not_categorical")
        if mask is None:
            mask = self._not_categorical = ~self.categorical
        return mask

    def _forget_kinds(self) -> None:
        """Drop what was read off the kinds and indexes (a column turned
        categorical, or the columns started anew)."""
        for cache in _KIND_CACHES:
            self.__dict__.pop(cache, None)

    @property
    def has_categories(self) -> bool:
        # Counted once (a row's prediction asks, and hashed text has a million
        # columns); forgotten when a column turns categorical (_column).
        count = self.__dict__.get("_n_categorical")
        if count is None:
            count = self._n_categorical = int(
                np.count_nonzero(self.kinds == CATEGORICAL)
            )
        return count > 0

    def category(self, feature: int, code: float):
        """The value of the category with ``code`` (None: missing)."""
        return self.categories[feature][int(code)]

    def _copy(self) -> ColumnEncoder:
        new = ColumnEncoder(self.max_categories)
        new.n_features = self.n_features
        new.kinds = self.kinds.copy()
        new.categories = [None if c is None else list(c) for c in self.categories]
        new.numbers = list(self.numbers)
        new._index = [None if index is None else dict(index) for index in self._index]
        return new

    # -- encoding ------------------------------------------------------------
    def encode(self, X, *, learning: bool, name: str = "the learner", names=None):
        """``X`` with every column a number; the encoder to keep.

        Numeric input without categorical columns is returned as it is (its
        validation comes after). A DataFrame stays a DataFrame (its column
        names are checked after), other input becomes a float array.

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (n, n_features)
        learning : bool
            Whether new columns are typed and new categories coded (else
            they read as NaN).
        name : str
            The learner, named in the messages.
        names : sequence, default=None
            Names of the columns in the messages (a DataFrame's own, or the
            column numbers, if None).

        Returns
        -------
        X : ndarray, DataFrame or sparse matrix
        encoder : ColumnEncoder
            This encoder, or a changed copy of it.

        Raises
        ------
        ValueError
            A column that changes type (numbers, then strings, or the
            reverse, while learning), a column mixing numbers and strings,
            sparse input to a learner with categorical columns, or a width
            other than the first call's.
        """
        fresh = self.n_features is None
        if sp.issparse(X):
            if self.has_categories:
                raise ValueError(
                    f"{name} has categorical columns: sparse input cannot hold "
                    "them. Pass a DataFrame or an array of objects."
                )
            return X, self._numeric_input(X.shape[1], learning)
        # (a Series has dtypes and iloc too: validation refuses it as 1-D)
        frame = hasattr(X, "dtypes") and hasattr(X, "iloc") and hasattr(X, "columns")
        if frame:
            dtypes = list(X.dtypes)
            plain = all(
                getattr(d, "kind", "O") in "biuf" and not is_category_dtype(d)
                for d in dtypes
            )
            array = None
        else:
            array = X if isinstance(X, np.ndarray) else as_array(X)
            if array is not None and array.ndim < 2:
                # scikit-learn's "Expected a 2-dimensional container", before
                # its numeric conversion says "could not convert string"
                check_array(X, dtype=None, ensure_all_finite=False)
            if array is None or array.ndim != 2:
                return X, self  # validation says what is wrong
            plain = array.dtype.kind in "biuf"
        n_rows, n = X.shape if array is None else array.shape
        if not fresh and n != self.n_features:
            raise ValueError(
                f"X has {n} features, but {name} is expecting "
                f"{self.n_features} features as input."
            )
        if plain and not self.has_categories:
            # A frame's column of NaN only (pandas reads a text column empty
            # so far as floats) has no value to type it by.
            values = X.to_numpy(float, na_value=np.nan) if frame else None
            valued = None if values is None else ~np.isnan(values).all(axis=0)
            return X, self._numeric_input(n, learning, valued)
        if fresh and not learning:
            return X, self  # nothing learnt: validation refuses it
        if not fresh and array is not None and array.dtype == object:
            known = self._known_codes(array)
            if known is not None:
                return known, self
        if names is None:
            names = list(X.columns) if frame else list(range(n))
        if not fresh:
            try:  # most calls learn nothing new: no copy then
                return self._encode(X, array, learning, False, names), self
            except _Change:
                pass
        encoder = self._copy()
        if fresh:
            encoder._start(n)
        return encoder._encode(X, array, learning, True, names), encoder

    def _known_codes(self, array: np.ndarray) -> np.ndarray | None:
        """The codes of an object array whose every value has its code
        already (:func:`~.known_codes.known_codes`); None otherwise."""
        return known_codes(self, array)

    def _encode(self, X, array, learning, mutable, names):
        """:meth:`encode`'s columns; raises ``_Change`` if learning them would
        change an encoder that is not ``mutable``."""
        out: list = []
        if array is None:  # a DataFrame
            columns = [X.iloc[:, j] for j in range(X.shape[1])]
            dtypes = list(X.dtypes)
        elif array.dtype.kind in "biuf":
            columns = [array[:, j] for j in range(array.shape[1])]
            dtypes = [array.dtype] * array.shape[1]
        else:  # objects or strings: as lists, column by column
            columns = array.T.tolist()
            dtypes = [array.dtype] * array.shape[1]
        read: dict = {}  # dtype -> (numeric, hint), as dtypes repeat
        for j, (column, dtype) in enumerate(zip(columns, dtypes)):
            if dtype not in read:
                read[dtype] = (
                    getattr(dtype, "kind", "O") in "biuf",
                    CATEGORICAL if is_category_dtype(dtype) else None,
                )
            numeric, hint = read[dtype]
            if numeric and hint is None and self.kinds[j] != CATEGORICAL:
                # (a frame's column of NaN only stays untyped, as in encode)
                if (
                    learning
                    and self.kinds[j] == UNKNOWN
                    and (array is not None or column.notna().any())
                ):
                    if not mutable:
                        raise _Change
                    self.kinds[j] = NUMERIC
                out.append(None)  # read as it is
                continue
            values = column
            if not isinstance(column, list):
                values = np.asarray(column, dtype=object).tolist()
            out.append(self._column(j, values, hint, learning, mutable, names[j]))
        if all(values is None for values in out):
            return X
        if array is None:
            result = X.copy(deep=False)
            for j, values in enumerate(out):
                if values is not None:
                    result.isetitem(j, np.asarray(values, dtype=float))
            return result
        if all(values is not None for values in out):  # objects: one conversion
            return np.array(out, dtype=float).T.copy()
        result = np.empty(array.shape)
        for j, values in enumerate(out):
            result[:, j] = array[:, j] if values is None else values
        return result

    def has_untyped(self) -> bool:
        """Whether a column has no type yet (kept once every column has one:
        a column never loses its type; hashed text has a million)."""
        if self.__dict__.get("_all_typed"):
            return False
        untyped = UNKNOWN in self.kinds
        if not untyped:
            self._all_typed = True
        return bool(untyped)

    def _numeric_input(
        self, n_features: int, learning: bool, valued=None
    ) -> ColumnEncoder:
        """The encoder to keep after numeric input: its columns are numeric
        (those ``valued`` says have a value, if given)."""
        if not learning or not (self.n_features is None or self.has_untyped()):
            return self
        if self.n_features is None and (valued is None or valued.all()):
            return ColumnEncoder.numeric(n_features, self.max_categories)
        encoder = (
            self._copy()
            if self.n_features is not None
            else ColumnEncoder(self.max_categories)
        )
        if self.n_features is None:
            encoder._start(n_features)
        untyped = encoder.kinds == UNKNOWN
        encoder.kinds[untyped if valued is None else untyped & valued] = NUMERIC
        return encoder

    def _column(self, j, values, hint, learning, mutable, name) -> list:
        kind = int(self.kinds[j])
        if kind == UNKNOWN:
            kind = hint or infer_kind(values, name)
            if learning and kind != UNKNOWN:
                if not mutable:
                    raise _Change
                self.kinds[j] = kind
                if kind == CATEGORICAL:
                    self.categories[j] = []
                    self._index[j] = {}
                    self._forget_kinds()
        if kind == NUMERIC:
            return numbers_of(values, name)
        if kind == CATEGORICAL:
            if self._index[j] is None:  # typed by values only predicted:
                return [np.nan] * len(values)  # all unseen while learning
            return self._codes(j, values, learning and mutable, learning, name)
        return [np.nan] * len(values)  # all missing so far

    def _codes(self, j, values, mutable, learning, name) -> list:
        index = self._index[j]
        try:  # each distinct value once, in order of first appearance
            distinct = dict.fromkeys(values)
        except TypeError:  # an unhashable value: _code says which
            distinct = None
        if distinct is None:
            return [self._code(j, value, mutable, learning, name) for value in values]
        for value in distinct:
            code = index.get(value)
            if code is None:  # missing, of another type, or new
                code = self._code(j, value, mutable, learning, name)
            distinct[value] = code
        return list(map(distinct.__getitem__, values))

    def _code(self, j, value, mutable, learning, name) -> float:
        """The code of a value not found as it is: missing, another type, new."""
        if is_missing(value):
            value = None
        else:
            if isinstance(value, np.generic):
                value = value.item()
            number = isinstance(value, Real) and not is_label(value)
            expected = self.numbers[j]
            if expected is None and learning:
                if not mutable:
                    raise _Change
                self.numbers[j] = expected = number
            if expected is not None and number != expected:
                if not learning:
                    return np.nan  # a value of another type: unseen
                what = "numbers" if expected else "categories"
                raise ValueError(
                    f"column {name!r} held {what} so far and now holds {value!r}: "
                    "a column keeps its type over the stream."
                )
        index = self._index[j]
        try:
            code = index.get(value)
        except TypeError:
            raise TypeError(
                f"column {name!r} has value {value!r}, which cannot be a "
                "category (it is not hashable)."
            ) from None
        if code is not None:
            return float(code)
        if not learning or len(self.categories[j]) >= self.max_categories:
            return np.nan
        if not mutable:
            raise _Change
        index[value] = code = len(self.categories[j])
        self.categories[j].append(value)
        return float(code)


class _Change(Exception):
    """Learning a call's input would change the encoder (copy it first)."""

"""The paper's encoding of categorical attributes as boolean features.

:func:`boolean_encoder` configures a
:class:`~sklearn.preprocessing.OneHotEncoder` the paper's way, naming each
feature ``"<attribute>=<value>"`` with :func:`_boolean_feature_name`. That
function is what a fitted encoder (and a pipeline or saved model holding one)
refers to, under this module's path, so it stays here. The loaders of the
bundled datasets are in :mod:`._uci_loaders`, the files they read in
:mod:`._uci_files`.
"""

import numpy as np
from sklearn.preprocessing import OneHotEncoder

#: Separator between attribute and value in boolean feature names.
#: ``"="`` occurs in no attribute name or value of the bundled datasets,
#: whereas scikit-learn's default ``"_"`` does (``has_nurs``, ``great_pret``).
FEATURE_NAME_SEPARATOR = "="


def _boolean_feature_name(feature, category):
    """Name of the boolean feature ``feature == category``.

    A module-level function (not a lambda) so that the encoder pickles.
    """
    return f"{feature}{FEATURE_NAME_SEPARATOR}{category}"


def boolean_encoder(*, categories="auto", sparse_output=False):
    """Encoder turning categorical attributes into the paper's boolean features.

    Bowling & Zinkevich (2012, section "Online Decision Tree Learning")
    transform every categorical attribute into one boolean feature per
    attribute value. This returns an unfitted
    :class:`~sklearn.preprocessing.OneHotEncoder` configured for that:

    * ``drop=None``: every value gets its own feature (none is dropped as a
      reference level), so each encoded row has exactly one 1 per attribute
      and the number of features is the number of distinct values.
    * ``handle_unknown="ignore"``: a value not seen during ``fit`` encodes
      as all zeros for that attribute, i.e. every "attribute = value" test
      is false, which is literally true for a new value.
    * ``dtype=numpy.uint8``: features are 0/1.
    * ``feature_name_combiner``: names are ``"<attribute>=<value>"``, e.g.
      ``"odor=n"`` or ``"stalk-root=?"``. ``"="`` is used instead of
      scikit-learn's ``"_"`` because underscores occur in attribute names and
      values (``"has_nurs=less_proper"`` is unambiguous,
      ``"has_nurs_less_proper"`` is not).
    * ``min_frequency=None``, ``max_categories=None``: no value is merged
      into an "infrequent" feature.

    Missing values need no special treatment when they are strings, as
    mushroom's ``'?'`` is: it simply becomes a feature of its own.

    Parameters
    ----------
    categories : 'auto' or list of array-like, default='auto'
        Passed to :class:`~sklearn.preprocessing.OneHotEncoder`. ``'auto'``
        uses the sorted distinct values seen in ``fit``; give a list (one
        array of values per attribute) to fix the feature space in advance,
        e.g. in an online setting where ``fit`` sees only a prefix of the
        data.
    sparse_output : bool, default=False
        Whether ``transform`` returns a SciPy sparse matrix. Dense is the
        default because the bundled datasets are small (at most
        12960 x 117 bytes) and decision-tree code indexes columns.

    Returns
    -------
    encoder : :class:`~sklearn.preprocessing.OneHotEncoder`
        The unfitted encoder.

    See Also
    --------
    load_nursery, load_mushroom, load_kr_vs_kp : Loaders whose
        ``one_hot=True`` option applies this encoder to the whole dataset.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_localregret.datasets import boolean_encoder
    >>> X = np.array([["x", "n"], ["b", "?"], ["x", "?"]], dtype=object)
    >>> encoder = boolean_encoder().fit(X)
    >>> encoder.transform(X)
    array([[0, 1, 0, 1],
           [1, 0, 1, 0],
           [0, 1, 1, 0]], dtype=uint8)
    >>> encoder.get_feature_names_out(["cap-shape", "stalk-root"])
    array(['cap-shape=b', 'cap-shape=x', 'stalk-root=?', 'stalk-root=n'],
          dtype=object)

    A value not seen in ``fit`` switches off every feature of its attribute:

    >>> encoder.transform(np.array([["k", "n"]], dtype=object))
    array([[0, 0, 0, 1]], dtype=uint8)
    """
    return OneHotEncoder(
        categories=categories,
        drop=None,
        sparse_output=sparse_output,
        dtype=np.uint8,
        handle_unknown="ignore",
        min_frequency=None,
        max_categories=None,
        feature_name_combiner=_boolean_feature_name,
    )

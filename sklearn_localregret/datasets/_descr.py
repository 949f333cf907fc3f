"""Descriptions (``DESCR``) of the bundled UCI datasets.

The texts live in Python rather than in ``.rst`` files because only
``data/*.csv.gz`` is shipped as package data. Every number quoted here is
checked against the bundled files by ``tests/datasets/test_datasets.py``.
"""

# Feature counts reported in the footnote of section "Online Decision Tree
# Learning" of Bowling & Zinkevich (2012).
PAPER_N_FEATURES = {"nursery": 28, "mushroom": 118, "kr-vs-kp": 74}

# Our one-hot feature counts (one boolean per distinct attribute value).
N_BOOLEAN_FEATURES = {"nursery": 27, "mushroom": 117, "kr-vs-kp": 73}

_LICENSE = """\
:License: Creative Commons Attribution 4.0 International (CC BY 4.0),
    https://creativecommons.org/licenses/by/4.0/legalcode . You may share and
    adapt the data for any purpose provided appropriate credit is given: cite
    the dataset as in the references below."""

_BOOLEAN_SECTION = """\
Boolean features (``one_hot=True``)
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

Bowling & Zinkevich (2012, section "Online Decision Tree Learning") turn every
categorical attribute into boolean features, one per attribute value. The
loaders do the same with :func:`~sklearn_localregret.datasets.boolean_encoder`
(a :class:`~sklearn.preprocessing.OneHotEncoder` with ``drop=None``) fitted on
the whole dataset, so the number of boolean features is the number of
*distinct values observed* per attribute, summed over the attributes. Feature
names are ``"<attribute>=<value>"``, e.g. ``"{example}"``.

{count_line}

The paper's footnote reports n = 28 (nursery), 118 (mushroom) and 74
(king-rook versus king-pawn); ours are 27, 117 and 73.

Our analysis of the difference (not stated in the paper): every one of our
counts is exactly one below the paper's. A difference that is the same for
all three datasets points to a convention of the paper's count, not to the
data. Nursery and kr-vs-kp have no missing values and no constant attribute,
and nursery is a complete factorial design in which every value listed in the
UCI documentation occurs, so there is no value that could be counted
differently. For mushroom none of the data-specific alternatives gives 118:
dropping the ``'?'`` category of ``stalk-root`` gives 116, dropping the
constant ``veil-type`` gives 116, dropping both gives 115, and counting every
value listed in the UCI attribute documentation (including nine values that
never occur in the data) plus ``'?'`` gives 126. The most likely explanation
is one extra feature per dataset that is not an attribute value, e.g. a
constant (always-true / bias) feature, or an off-by-one in the reported
count; the paper does not say. We do not add such a feature: append a
constant column yourself if ``n`` must equal the paper's."""

_PAPER_REFERENCE = (
    "- Bowling, M. and Zinkevich, M. (2012). On Local Regret. Proceedings of the\n"
    "  29th International Conference on Machine Learning (ICML 2012)."
)

_NURSERY_BOOLEAN = _BOOLEAN_SECTION.format(
    example="parents=usual",
    count_line="Nursery: 27 boolean features, one fewer than the paper's 28.",
)
_MUSHROOM_BOOLEAN = _BOOLEAN_SECTION.format(
    example="odor=n",
    count_line="Mushroom: 117 boolean features, one fewer than the paper's 118.",
)
_KR_VS_KP_BOOLEAN = _BOOLEAN_SECTION.format(
    example="katri=w",
    count_line=(
        "King-rook versus king-pawn: 73 boolean features, one fewer than the "
        "paper's 74."
    ),
)


NURSERY_DESCR = f"""\
.. _nursery_dataset:

Nursery dataset
---------------

**Data Set Characteristics:**

:Number of Instances: 12960 (every combination of attribute values occurs
    exactly once: 3 * 5 * 4 * 4 * 3 * 2 * 3 * 3 = 12960)
:Number of Attributes: 8 categorical attributes and the class
:Attribute Information (column: values):
    - parents: usual, pretentious, great_pret (parents' occupation)
    - has_nurs: proper, less_proper, improper, critical, very_crit
      (child's nursery)
    - form: complete, completed, incomplete, foster (form of the family)
    - children: 1, 2, 3, more (number of children)
    - housing: convenient, less_conv, critical (housing conditions)
    - finance: convenient, inconv (financial standing of the family)
    - social: nonprob, slightly_prob, problematic (social conditions)
    - health: recommended, priority, not_recom (health conditions)
:Class: column ``classification`` (the last CSV column)

    ============  =====  =======
    class         count  percent
    ============  =====  =======
    not_recom      4320  33.333%
    priority       4266  32.917%
    recommend         2   0.015%
    spec_prior     4044  31.204%
    very_recom      328   2.531%
    ============  =====  =======

:Missing Attribute Values: None
:Boolean features: 27 (= 3 + 5 + 4 + 4 + 3 + 2 + 3 + 3)
:Creator: Vladislav Rajkovic et al. (13 experts)
:Donors: Marko Bohanec and Blaz Zupan, June 1997
:Source: UCI Machine Learning Repository, dataset 76,
    https://archive.ics.uci.edu/dataset/76/nursery
:DOI: https://doi.org/10.24432/C5P88W
{_LICENSE}

The Nursery database was derived from a hierarchical decision model
originally developed to rank applications for nursery schools in Ljubljana,
Slovenia, in the 1980s. Because it enumerates the whole attribute space, the
class is a deterministic function of the eight attributes.

The bundled file ``nursery.csv.gz`` is the UCI data with a header row; its
trailing empty line (also present in the UCI ``nursery.data``) is skipped.
All values are kept as strings, including ``children`` ('1', '2', '3',
'more').

{_NURSERY_BOOLEAN}

.. rubric:: References

- Rajkovic, V. (1989). Nursery [Dataset]. UCI Machine Learning Repository.
  https://doi.org/10.24432/C5P88W
- Olave, M., Rajkovic, V. and Bohanec, M. (1989). An application for
  admission in public school systems. In Expert Systems in Public
  Administration, pages 145-160. Elsevier Science Publishers (North Holland).
{_PAPER_REFERENCE}
"""


MUSHROOM_DESCR = f"""\
.. _mushroom_dataset:

Mushroom dataset
----------------

**Data Set Characteristics:**

:Number of Instances: 8124
:Number of Attributes: 22 categorical attributes and the class
:Attribute Information (column: observed values):
    - cap-shape: b, c, f, k, s, x
    - cap-surface: f, g, s, y
    - cap-color: b, c, e, g, n, p, r, u, w, y
    - bruises: f, t
    - odor: a, c, f, l, m, n, p, s, y
    - gill-attachment: a, f
    - gill-spacing: c, w
    - gill-size: b, n
    - gill-color: b, e, g, h, k, n, o, p, r, u, w, y
    - stalk-shape: e, t
    - stalk-root: ?, b, c, e, r  ('?' = missing, see below)
    - stalk-surface-above-ring: f, k, s, y
    - stalk-surface-below-ring: f, k, s, y
    - stalk-color-above-ring: b, c, e, g, n, o, p, w, y
    - stalk-color-below-ring: b, c, e, g, n, o, p, w, y
    - veil-type: p  (constant: the same value for all 8124 instances)
    - veil-color: n, o, w, y
    - ring-number: n, o, t
    - ring-type: e, f, l, n, p
    - spore-print-color: b, h, k, n, o, r, u, w, y
    - population: a, c, n, s, v, y
    - habitat: d, g, l, m, p, u, w

    The letter codes are explained in the UCI documentation
    (``agaricus-lepiota.names``), e.g. odor: almond=a, creosote=c, foul=f,
    anise=l, musty=m, none=n, pungent=p, spicy=s, fishy=y. The
    documentation also lists nine values that never occur in the data
    (gill-attachment d, n; gill-spacing d; stalk-root u, z; veil-type u;
    ring-type c, s, z); they are not categories here.
:Class: column ``edibility`` (the *first* CSV column): e = edible,
    p = poisonous (includes "unknown edibility, not recommended")

    =====  =====  =======
    class  count  percent
    =====  =====  =======
    e       4208    51.8%
    p       3916    48.2%
    =====  =====  =======

:Missing Attribute Values: 2480, all in ``stalk-root``, encoded as the
    string ``'?'``. The loaders keep ``'?'`` as a category of its own (it is
    never converted to NaN), so with ``one_hot=True`` there is a boolean
    feature ``stalk-root=?``, exactly as the paper's one-boolean-per-value
    encoding of the raw file would have.
:Boolean features: 117 (= 6 + 4 + 10 + 2 + 9 + 2 + 2 + 2 + 12 + 2 + 5 + 4 + 4
    + 9 + 9 + 1 + 4 + 3 + 5 + 9 + 6 + 7), including ``stalk-root=?`` and the
    constant ``veil-type=p``
:Source: records drawn from The Audubon Society Field Guide to North
    American Mushrooms (1981), G. H. Lincoff (Pres.), New York: Alfred A.
    Knopf. Donor: Jeff Schlimmer, 27 April 1987.
:UCI page: UCI Machine Learning Repository, dataset 73,
    https://archive.ics.uci.edu/dataset/73/mushroom
:DOI: https://doi.org/10.24432/C5959T
{_LICENSE}

The data describe hypothetical samples corresponding to 23 species of gilled
mushrooms in the Agaricus and Lepiota family. Each species is identified as
definitely edible, definitely poisonous, or of unknown edibility and not
recommended; the latter class was combined with the poisonous one.

The bundled file ``mushroom.csv.gz`` is the UCI ``agaricus-lepiota.data``
with a header row. The ``target`` returned by the loader is the first column
(``edibility``); ``data`` holds the other 22 columns in file order, and in
``frame`` the target is the last column.

{_MUSHROOM_BOOLEAN}

.. rubric:: References

- Mushroom [Dataset]. (1981). UCI Machine Learning Repository.
  https://doi.org/10.24432/C5959T
- Schlimmer, J. S. (1987). Concept Acquisition Through Representational
  Adjustment. Technical Report 87-19, University of California, Irvine.
{_PAPER_REFERENCE}
"""


KR_VS_KP_FEATURE_NAMES = (
    "bkblk",
    "bknwy",
    "bkon8",
    "bkona",
    "bkspr",
    "bkxbq",
    "bkxcr",
    "bkxwp",
    "blxwp",
    "bxqsq",
    "cntxt",
    "dsopp",
    "dwipd",
    "hdchk",
    "katri",
    "mulch",
    "qxmsq",
    "r2ar8",
    "reskd",
    "reskr",
    "rimmx",
    "rkxwp",
    "rxmsq",
    "simpl",
    "skach",
    "skewr",
    "skrxp",
    "spcop",
    "stlmt",
    "thrsk",
    "wkcti",
    "wkna8",
    "wknck",
    "wkovl",
    "wkpos",
    "wtoeg",
)


KR_VS_KP_DESCR = f"""\
.. _kr_vs_kp_dataset:

Chess (King-Rook vs. King-Pawn) dataset
---------------------------------------

**Data Set Characteristics:**

:Number of Instances: 3196 (board positions of the endgame king + rook
    versus king + pawn on a7, the pawn one square from queening; white,
    with the rook, is to move)
:Number of Attributes: 36 categorical attributes and the class
:Attribute Information: the attributes are board features named, in
    column order, bkblk, bknwy, bkon8, bkona, bkspr, bkxbq, bkxcr, bkxwp,
    blxwp, bxqsq, cntxt, dsopp, dwipd, hdchk, katri, mulch, qxmsq, r2ar8,
    reskd, reskr, rimmx, rkxwp, rxmsq, simpl, skach, skewr, skrxp, spcop,
    stlmt, thrsk, wkcti, wkna8, wknck, wkovl, wkpos, wtoeg (the order of the
    UCI documentation ``kr-vs-kp.names``). Observed values:

    - dwipd (13th): g, l
    - katri (15th): b, n, w
    - wtoeg (36th): n, t
    - the other 33 attributes: f, t (false / true)

    ``spcop`` is nearly constant (``'t'`` in a single instance).
:Class: column ``target`` (the last CSV column): won = white can win,
    nowin = white cannot win

    =====  =====  =======
    class  count  percent
    =====  =====  =======
    nowin   1527    47.8%
    won     1669    52.2%
    =====  =====  =======

:Missing Attribute Values: None
:Boolean features: 73 (= 35 * 2 + 3)
:Creator: Alen D. Shapiro (database generated and described by); donor
    Rob Holte, 1 August 1989
:Source: UCI Machine Learning Repository, dataset 22,
    https://archive.ics.uci.edu/dataset/22/chess+king+rook+vs+king+pawn
:DOI: https://doi.org/10.24432/C5DK5C
{_LICENSE}

The bundled file ``kr-vs-kp.csv.gz`` is the UCI ``kr-vs-kp.data`` with a
header row whose attribute columns are named generically ``V1`` ... ``V36``.
The values are in the positional order documented by UCI, so the loader
checks the header and reports the documented names (``V1`` is ``bkblk``,
``V36`` is ``wtoeg``).

{_KR_VS_KP_BOOLEAN}

.. rubric:: References

- Shapiro, A. (1983). Chess (King-Rook vs. King-Pawn) [Dataset]. UCI
  Machine Learning Repository. https://doi.org/10.24432/C5DK5C
- Shapiro, A. D. (1987). Structured Induction in Expert Systems.
  Addison-Wesley.
{_PAPER_REFERENCE}
"""

"""Checks of the benchmark scripts' options, shared by them.

A bad value gets argparse's one-line usage error before any work, never a
traceback from deep in a run. Numbers are checked by the ``argparse`` types
of :mod:`sklearn_localregret._arguments` (``positive_int``,
``int_at_least``, ``int_in_range``), :data:`seed_int` and
:func:`float_in_range`; the helpers here also check what those cannot: a
learner's ``NAME=VALUE`` parameters, lists of stream names, and River where
a stream or a learner needs it.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import math
from collections.abc import Callable, Iterable

from sklearn_localregret._arguments import int_in_range
from sklearn_localregret.datasets.streams import MIN_ROWS, STREAMS
from sklearn_localregret.engine.discount_clock import SMALLEST_DISCOUNT

#: The ``argparse`` type of a seed: what NumPy and scikit-learn's
#: ``random_state`` both take.
seed_int = int_in_range(0, 2**32 - 1)

#: How to install River (``pyproject.toml``'s ``river`` extra).
RIVER_HINT = "pip install river (or pip install 'sklearn-localregret[river]')"


def float_in_range(
    lo: float,
    hi: float,
    *,
    inclusive: tuple[bool, bool] = (True, True),
    what: str | None = None,
) -> Callable[[str], float]:
    """The ``argparse`` type of a finite number from ``lo`` to ``hi``, each
    end included or not (``inclusive``); NaN and infinities are refused.
    ``what`` words the range in the error (default: ``a number in [lo,
    hi]``, brackets as ``inclusive``).

    Examples
    --------
    >>> float_in_range(0, 1)("0.5")
    0.5
    >>> float_in_range(0, 1, inclusive=(False, True))("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number in (0, 1], got '0'
    """
    left, right = inclusive
    if what is None:
        what = f"a number in {'[('[not left]}{lo:g}, {hi:g}{'])'[not right]}"

    def check(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        inside = (lo <= value if left else lo < value) and (
            value <= hi if right else value < hi
        )
        if not (math.isfinite(value) and inside):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return check


#: The ``argparse`` type of a learner's ``discount``: what the learners take.
discount_float = float_in_range(
    SMALLEST_DISCOUNT, 1.0, what="a discount in (0, 1] (at least 2.2e-308)"
)


def river_installed() -> bool:
    """Whether River can be imported."""
    return importlib.util.find_spec("river") is not None


def require_river(parser: argparse.ArgumentParser, what: str) -> None:
    """Refuse, with ``parser.error``, a run that needs River (``what`` says
    why) when River is not installed."""
    if not river_installed():
        parser.error(f"{what}: {RIVER_HINT}")


def available_streams(
    parser: argparse.ArgumentParser,
    option: str,
    names: Iterable[str] | None,
    default: Iterable[str],
) -> list[str]:
    """The streams to run: ``names`` (None: ``default``). Without River, a
    named stream built with River is refused (``parser.error``) and those of
    the default are left out, with a note (names not of :data:`STREAMS`, a
    script's own, are kept)."""
    chosen = list(default if names is None else names)
    if river_installed():
        return chosen
    river = [name for name in chosen if name in STREAMS and STREAMS[name].needs_river]
    if river and names is not None:
        parser.error(
            f"{option}: {', '.join(map(repr, river))} "
            f"{'is' if len(river) == 1 else 'are'} built with River: {RIVER_HINT}"
        )
    if river:
        print("(River is not installed: its streams are skipped)")
    return [name for name in chosen if name not in river]


def estimator_params(
    parser: argparse.ArgumentParser,
    option: str,
    items: Iterable[str],
    estimator: type,
    *,
    reserved: Iterable[str] = (),
) -> dict:
    """``["batch_size=10", "discount=0.98"]`` as keyword arguments of
    ``estimator`` (a class), each value a Python literal.

    Refused with ``parser.error``: an item without ``=``, a value that is
    not a Python literal, a name that is not one of ``estimator().get_params()``
    or that the script sets itself (``reserved``), and a value that the
    estimator's own parameter checks refuse.
    """
    params = {}
    for item in items:
        name, equals, value = item.partition("=")
        if not equals or not name:
            parser.error(f"{option}: expected NAME=VALUE, got {item!r}")
        try:
            params[name] = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            parser.error(
                f"{option}: the value of {name} is not a Python literal: {value!r}"
                f" (a string is quoted: {name}='{value}')"
            )
    known = estimator().get_params()
    unknown = [name for name in params if name not in known]
    if unknown:
        parser.error(
            f"{option}: {estimator.__name__} has no parameter "
            f"{', '.join(map(repr, unknown))}; its parameters are "
            f"{', '.join(sorted(known))}"
        )
    taken = [name for name in params if name in set(reserved)]
    if taken:
        parser.error(f"{option}: the script sets {', '.join(taken)} itself")
    check_params(parser, option, estimator, params)
    return params


def check_params(
    parser: argparse.ArgumentParser, option: str, estimator: type, params: dict
) -> None:
    """Refuse, with ``parser.error``, parameters that ``estimator``'s own
    checks (scikit-learn's ``_validate_params``) refuse."""
    try:
        estimator(**params)._validate_params()
    except (ValueError, TypeError) as error:  # InvalidParameterError is both
        parser.error(f"{option}: {error}")


def stream_list(
    *, allow_all: bool = False, allow_empty: bool = False
) -> Callable[[str], list[str]]:
    """The ``argparse`` type of a comma-separated list of named streams
    (``"phishing,bananas"``); ``"all"``, where allowed, is every named
    stream; the empty string, where allowed, is the empty list (a script's
    default)."""

    def check(text: str) -> list[str]:
        if allow_all and text == "all":
            return list(STREAMS)
        names = [name for name in text.split(",") if name]
        if not names and not allow_empty:
            raise argparse.ArgumentTypeError("expected at least one stream name")
        unknown = [name for name in names if name not in STREAMS]
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown stream {', '.join(map(repr, unknown))}; the named "
                f"streams are {', '.join(STREAMS)}" + (", or all" if allow_all else "")
            )
        return names

    return check


def check_stream_rows(
    parser: argparse.ArgumentParser, option: str, names: Iterable[str], n_rows: int
) -> None:
    """Refuse, with ``parser.error``, ``n_rows`` rows of a named stream that
    has fewer (a real dataset sampled without replacement) or that are fewer
    than ``MIN_ROWS``."""
    for name in names:
        most = STREAMS[name].max_rows
        if n_rows < MIN_ROWS or (most is not None and n_rows > most):
            parser.error(
                f"{option}: from {MIN_ROWS} to {most or 'any number of'} rows "
                f"of {name}, got {n_rows}"
            )

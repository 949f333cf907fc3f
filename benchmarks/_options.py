"""Checks of the benchmark scripts' options, shared by them.

A bad value gets argparse's one-line usage error before any work, never a
traceback from deep in a run. Numbers are checked by the ``argparse`` types
of :mod:`sklearn_localregret._arguments` (``positive_int``,
``int_at_least``) and :data:`seed_int`; the helpers here check what those
cannot: a learner's ``NAME=VALUE`` parameters and lists of stream names.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Callable, Iterable

from sklearn_localregret._arguments import int_in_range
from sklearn_localregret.datasets.streams import STREAMS

#: The ``argparse`` type of a seed: what NumPy and scikit-learn's
#: ``random_state`` both take.
seed_int = int_in_range(0, 2**32 - 1)


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

"""Parameters set on a fitted model: what its first call built from them
cannot change under it, and a fitted ``partial_fit`` validates none.

scikit-learn validates an estimator's parameters in ``fit`` and in the first
``partial_fit``, not in later ones; a learner's first call builds its model
from some of them (:attr:`BaseOnlineClassifier._BUILT_FROM`). So a
``set_params`` on a fitted model is checked at the next ``partial_fit``: a
built parameter that differs from the value the model was built from is
refused, and the others are validated as ``fit`` would, before anything
changes.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from numbers import Number

import numpy as np

__all__ = ["built_values", "check_set_params", "same_setting", "set_params_checked"]


def same_setting(a, b) -> bool:
    """Whether two parameter values are the same setting (``3`` and
    ``np.int64(3)`` are, and so are ``(0.9, 1.0)``, ``[0.9, 1.0]`` and its
    array; ``1`` and ``"1"`` are not)."""
    if a is b:
        return True
    if isinstance(a, Number) and isinstance(b, Number):
        return bool(a == b)
    if _is_sequence(a) and _is_sequence(b):
        a, b = list(a), list(b)
        return len(a) == len(b) and all(same_setting(x, y) for x, y in zip(a, b))
    return repr(a) == repr(b)


def _is_sequence(value) -> bool:
    return isinstance(value, (list, tuple)) or (
        isinstance(value, np.ndarray) and value.ndim == 1
    )


def _changed(estimator, built: dict) -> tuple:
    """The built parameters whose values differ from those the model was
    built with, but for the changes the estimator allows
    (``_BUILT_CHANGES_ALLOWED``: name -> pairs ``(built, now)``)."""
    allowed = getattr(estimator, "_BUILT_CHANGES_ALLOWED", {})
    return tuple(
        name
        for name in estimator._BUILT_FROM
        if not same_setting(now := getattr(estimator, name), was := built.get(name))
        and (was, now) not in allowed.get(name, ())
    )


def built_values(estimator) -> dict:
    """The built parameters' values as they are now (copies: a list the
    caller changes in place later is not the model's)."""
    return {n: copy.deepcopy(getattr(estimator, n)) for n in estimator._BUILT_FROM}


@contextmanager
def set_params_checked(estimator):
    """Around ``set_params``: on a fitted estimator, note the built
    parameters that now differ from what its model was built from, and that
    its parameters are to be validated at the next ``partial_fit``."""
    state = estimator.__dict__
    fitted = "classes_" in state
    if fitted and "_built_with" not in state:
        # Saved before what it was built from was: from what it was saved
        # with (a loaded model has every parameter by now).
        state["_built_with"] = built_values(estimator)
    elif fitted:
        # Saved before a parameter joined _BUILT_FROM: it was built with
        # the value it was saved with (its value before this set_params).
        now = built_values(estimator)
        for name in estimator._BUILT_FROM:
            state["_built_with"].setdefault(name, now[name])
    yield
    built = state.get("_built_with")
    if built is not None:
        changed = _changed(estimator, built)
        state.pop("_params_changed", None)
        if changed:
            state["_params_changed"] = changed
    if fitted:
        state["_params_set"] = True


def check_set_params(estimator) -> None:
    """At a ``partial_fit`` after ``set_params``: a ``ValueError`` naming the
    built parameters changed, else the parameters validated (scikit-learn's
    ``InvalidParameterError``); nothing changes if either raises."""
    state = estimator.__dict__
    changed = state.get("_params_changed")
    built = state.get("_built_with")
    if not changed and state.get("_params_set") and built is not None:
        # (again: a list set, then changed in place before this call)
        changed = _changed(estimator, built)
    if changed:
        built = state["_built_with"]
        now = ", ".join(f"{n}={getattr(estimator, n)!r}" for n in changed)
        was = ", ".join(f"{n}={built[n]!r}" for n in changed)
        raise ValueError(
            f"{now} was set after this model was fitted with {was}: "
            "partial_fit goes on with the model those built; call fit to "
            "start over with the new values (or set them back)"
        )
    if state.get("_params_set"):
        estimator._validate_params()
        del state["_params_set"]

"""The paper's experiments, reproduced: Max-3SAT, disjunct learning, trees.

Each ``run_*`` function writes a PNG of the figure's panels plus CSV and JSON of
every plotted number (the mean over trials and its 95% confidence interval,
see :mod:`sklearn_localregret.experiments._intervals`) into an output folder
and prints a summary table. ``scale="default"`` runs enough trials to separate
what the paper's claims separate in a few minutes, ``scale="paper"`` the
paper's full trial counts, ``scale="quick"`` a check that finishes in seconds.
Trials run in ``n_jobs`` worker processes with the numbers of a serial run.

The command line (``python -m sklearn_localregret``) exposes each experiment
of :data:`EXPERIMENTS` as a subcommand, and ``all`` runs them in that order.

:func:`run_streams` is the stream leaderboard: progressive validation of our
learners and their peers (River, scikit-learn) on real, drifting and
adversarial streams (:mod:`sklearn_localregret.experiments.streams`).
"""

from importlib import import_module

__all__ = [
    "EXPERIMENTS",
    "MAX_ROUNDS",
    "MAX_SEEDS",
    "MAX_STREAM_ROWS",
    "MAX_TRIALS",
    "get_experiment",
    "run_disjunct",
    "run_maxsat",
    "run_streams",
    "run_trees",
]

#: Name -> (module, one-line description) of every experiment, in the order
#: ``all`` runs them. A new experiment is a module with an ``EXPERIMENT``
#: (:class:`~sklearn_localregret.experiments._runner.Experiment`) and one line
#: here.
EXPERIMENTS = {
    "maxsat": (
        "sklearn_localregret.experiments.maxsat",
        "online Max-3SAT (the paper's figure 3cnf: regret and unsatisfied clauses)",
    ),
    "disjunct": (
        "sklearn_localregret.experiments.disjunct",
        "online disjunct learning: random disjunction, Winnow killer",
    ),
    "trees": (
        "sklearn_localregret.experiments.trees",
        "online decision trees on nursery, mushroom, kr-vs-kp, alternating labels",
    ),
}

#: The most trials (instances) and rounds per trial an experiment takes: five
#: times the paper's largest trial count and a hundred times its rounds. More
#: would only run out of memory or of the user's patience.
MAX_TRIALS = 1000
MAX_ROUNDS = 100_000
#: The most seeds and rows per named stream the stream leaderboard takes
#: (every seed's copy of every stream is built before the runs).
MAX_SEEDS = 100
MAX_STREAM_ROWS = 1_000_000

_RUNNERS = {"run_maxsat": "maxsat", "run_disjunct": "disjunct", "run_trees": "trees"}


def get_experiment(name: str):
    """The :class:`~._runner.Experiment` called ``name`` (imported on demand).

    Raises
    ------
    ValueError
        An unknown name.
    """
    if name not in EXPERIMENTS:
        raise ValueError(
            f"unknown experiment {name!r}; choose from {list(EXPERIMENTS)}."
        )
    return import_module(EXPERIMENTS[name][0]).EXPERIMENT


def __getattr__(name):
    # Lazy: each experiment imports its learners only when asked for.
    if name in _RUNNERS:
        return getattr(import_module(EXPERIMENTS[_RUNNERS[name]][0]), name)
    if name == "run_streams":
        from .streams import run_streams

        return run_streams
    raise AttributeError(name)

"""The paper's experiments, reproduced: Max-3SAT, disjunct learning, trees.

Each ``run_*`` function writes a PNG of the figure's panels plus CSV and JSON of
every plotted number (mean and 95% confidence interval over trials) into an
output folder and prints a summary table; ``quick=True`` runs a small version
that finishes in seconds. The command line
(``python -m sklearn_localregret``) exposes them as subcommands.

:func:`run_streams` is the stream leaderboard: progressive validation of our
learners and their peers (River, scikit-learn) on real, drifting and
adversarial streams (:mod:`sklearn_localregret.experiments.streams`).
"""

__all__ = ["run_disjunct", "run_maxsat", "run_streams", "run_trees"]


def __getattr__(name):
    # Lazy: each experiment imports its learners only when asked for.
    if name == "run_maxsat":
        from .maxsat import run_maxsat

        return run_maxsat
    if name == "run_disjunct":
        from .disjunct import run_disjunct

        return run_disjunct
    if name == "run_trees":
        from .trees import run_trees

        return run_trees
    if name == "run_streams":
        from .streams import run_streams

        return run_streams
    raise AttributeError(name)

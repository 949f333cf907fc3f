"""The paper's experiments, reproduced: Max-3SAT, disjunct learning, trees.

Each ``run_*`` function writes a PNG of the figure's panels plus CSV and JSON of
every plotted number (mean and 95% confidence interval over trials) into an
output folder and prints a summary table; ``quick=True`` runs a small version
that finishes in seconds. The command line
(``python -m sklearn_localregret``) exposes them as subcommands.
"""

__all__ = ["run_disjunct", "run_maxsat", "run_trees"]


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
    raise AttributeError(name)

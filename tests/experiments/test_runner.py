"""Running experiments: parallel equals serial, files complete or absent, reruns
skip what is done."""

import json
import signal

import pytest

from sklearn_localregret.experiments import get_experiment
from sklearn_localregret.experiments._runner import Experiment, Task, TaskRunner

pytest.importorskip("matplotlib")

TINY = {"n_trials": 3, "n_rounds": 20}


def _run(out, n_jobs=1, resume=False, **overrides):
    experiment = get_experiment("disjunct")
    parameters = experiment.parameters("quick", **{**TINY, **overrides})
    with TaskRunner(n_jobs) as runner:
        return experiment.run(
            out, parameters, runner=runner, progress=False, resume=resume
        )


def test_worker_processes_give_the_numbers_of_a_serial_run(tmp_path):
    serial = _run(tmp_path / "serial", n_jobs=1)
    experiment = get_experiment("disjunct")
    with TaskRunner(2) as runner:
        parallel = experiment.run(
            tmp_path / "parallel",
            experiment.parameters("quick", **TINY),
            runner=runner,
            progress=False,
        )
        # Ctrl-C is the parent's to handle: the workers ignore it, so that
        # none prints a traceback when a terminal signals them all.
        handlers, _, _ = runner.run(
            [Task("probe", signal.getsignal, (signal.SIGINT,))] * 4, progress=False
        )
    assert handlers == [signal.SIG_IGN] * 4
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert parallel["n_jobs"] == 2
    assert parallel["panels"] == serial["panels"]
    assert (tmp_path / "serial" / "disjunct.csv").read_bytes() == (
        tmp_path / "parallel" / "disjunct.csv"
    ).read_bytes()


def test_trials_do_not_depend_on_how_many_there_are(tmp_path):
    # Trial i is seeded by (seed, i) alone: 3 trials of a 4-trial run are the
    # 3 trials of a 3-trial run, so a larger run extends a smaller one.
    experiment = get_experiment("disjunct")
    small = experiment.plan(experiment.parameters("quick", **TINY))
    large = experiment.plan(experiment.parameters("quick", **{**TINY, "n_trials": 4}))
    first = small[0].function(*small[0].args)
    same = [t for t in large if t.args == small[0].args]
    assert len(same) == 1
    for label, errors in same[0].function(*same[0].args).items():
        assert (errors == first[label]).all()


def test_a_rerun_with_the_same_parameters_skips(tmp_path, monkeypatch, capsys):
    first = _run(tmp_path)
    assert not first["skipped"]
    stamps = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}

    def no_work(*args, **kwargs):
        raise AssertionError("a finished experiment ran again")

    monkeypatch.setattr(TaskRunner, "run", no_work)
    again = _run(tmp_path, resume=True)
    assert again["skipped"] and again["panels"] == first["panels"]
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == stamps
    out = capsys.readouterr().out
    assert "already done" in out and first["table"] in out
    # Other parameters, a missing file, or no resume: it runs again.
    with pytest.raises(AssertionError, match="ran again"):
        _run(tmp_path, resume=True, seed=1)
    with pytest.raises(AssertionError, match="ran again"):
        _run(tmp_path, resume=False)
    (tmp_path / "disjunct.png").unlink()
    with pytest.raises(AssertionError, match="ran again"):
        _run(tmp_path, resume=True)


def test_an_interrupted_experiment_leaves_no_file_that_claims_to_be_done(
    tmp_path, monkeypatch
):
    finished = _run(tmp_path)
    from sklearn_localregret.experiments import _runner

    def interrupted(panels, path):
        raise KeyboardInterrupt

    # A rerun with other parameters is interrupted after writing its CSV.
    monkeypatch.setattr(_runner, "plot_panels", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, seed=1)
    names = sorted(p.name for p in tmp_path.iterdir())
    # No temporary, no JSON; the tasks kept for a rerun.
    assert names == ["disjunct.csv", "disjunct.partial", "disjunct.png"]
    monkeypatch.undo()
    # The old JSON is gone with the CSV it described: nothing is skipped.
    rerun = _run(tmp_path, resume=True)
    assert not rerun["skipped"] and rerun["panels"] == finished["panels"]
    assert json.loads((tmp_path / "disjunct.json").read_text())["files"] == [
        "disjunct.csv",
        "disjunct.png",
    ]


def test_an_interrupted_experiment_goes_on_from_its_finished_tasks(
    tmp_path, monkeypatch, capsys
):
    from sklearn_localregret.experiments import _task_runner

    whole = _run(tmp_path / "whole")
    cut = tmp_path / "cut"
    real_call, calls = _task_runner._call, []

    def call(indexed):
        calls.append(indexed[0])
        if stop_at and len(calls) == stop_at:
            raise KeyboardInterrupt
        return real_call(indexed)

    monkeypatch.setattr(_task_runner, "_call", call)
    stop_at = 5
    with pytest.raises(KeyboardInterrupt):
        _run(cut)
    partial = cut / "disjunct.partial"
    kept = sorted(int(p.stem[5:]) for p in partial.glob("task-*.json"))
    assert kept == sorted(calls[:4])
    assert sorted(p.name for p in cut.iterdir()) == ["disjunct.partial"]
    # The same parameters: only the other tasks run, and the numbers are those
    # of an uninterrupted run; the kept tasks go once the files are written.
    calls.clear()
    stop_at = 0
    resumed = _run(cut, resume=True)
    assert sorted(calls + kept) == list(range(9))
    assert resumed["panels"] == whole["panels"] and resumed["kept_tasks"] == 4
    assert (cut / "disjunct.csv").read_bytes() == (
        tmp_path / "whole" / "disjunct.csv"
    ).read_bytes()
    assert not partial.exists()
    assert "disjunct: 4 of 9 tasks kept from an interrupted run" in (
        capsys.readouterr().out
    )
    # Tasks kept under other parameters are never used.
    stop_at = 2
    calls.clear()
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path / "other", seed=1)
    assert len(list((tmp_path / "other" / "disjunct.partial").glob("t*"))) == 1
    calls.clear()
    stop_at = 0
    _run(tmp_path / "other", resume=True)  # seed=0
    assert sorted(calls) == list(range(9))


def test_parameters_are_checked():
    experiment = get_experiment("maxsat")
    assert experiment.parameters("paper")["n_instances"] == 200
    assert experiment.parameters("default", n_instances=7)["n_instances"] == 7
    with pytest.raises(ValueError, match="scale"):
        experiment.parameters("huge")
    with pytest.raises(ValueError, match="n_rounds must be an integer >= 1"):
        experiment.parameters("quick", n_rounds=0)
    with pytest.raises(TypeError, match="no parameter 'n_trials'"):
        experiment.parameters("quick", n_trials=3)
    with pytest.raises(ValueError, match="n_jobs"):
        TaskRunner(0)
    # Counts that would only run out of memory (numpy's MemoryError after an
    # estimate of 69444444 h; the task list of 10**8 instances).
    with pytest.raises(ValueError, match="n_rounds must be at most 100000"):
        experiment.parameters("quick", n_rounds=10**15)
    with pytest.raises(ValueError, match="n_instances must be at most 1000"):
        experiment.parameters("quick", n_instances=10**8)
    # Three distinct variables per clause (numpy's "Cannot take a larger
    # sample than population" from the first instance).
    with pytest.raises(ValueError, match="n_vars must be at least 3: each clause"):
        experiment.parameters("quick", n_vars=2)


def test_the_run_functions_check_their_arguments_before_running(tmp_path, monkeypatch):
    from sklearn_localregret.experiments import run_maxsat, run_trees
    from sklearn_localregret.experiments.maxsat import random_3sat

    with pytest.raises(ValueError, match="n_vars must be at least 3"):
        run_maxsat(tmp_path, scale="quick", n_vars=2, progress=False)
    with pytest.raises(ValueError, match="n_vars must be at least 3"):
        random_3sat(2, 1, None)
    # An output folder that is a file: refused before the first task, not by
    # the first task's checkpoint (NotADirectoryError).
    taken = tmp_path / "taken"
    taken.write_text("")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        run_maxsat(taken, scale="quick", n_rounds=20, progress=False)
    # A dataset twice would pool its trials twice into one panel; one name
    # is one dataset, not its letters.
    with pytest.raises(ValueError, match="each once"):
        run_trees(tmp_path, datasets=["mushroom", "mushroom"], progress=False)
    asked = []
    monkeypatch.setattr(
        Experiment, "run", lambda self, out, parameters, **kw: asked.append(parameters)
    )
    run_trees(tmp_path, scale="quick", datasets="mushroom", progress=False)
    assert asked[0]["datasets"] == ["mushroom"]
    assert not list(tmp_path.glob("*.partial"))


def test_time_estimates_use_this_machines_earlier_run(tmp_path):
    from sklearn_localregret.experiments._runner import STARTUP_SECONDS

    experiment = get_experiment("disjunct")
    parameters = experiment.parameters("paper")
    reference = experiment.estimate_seconds(parameters, n_jobs=2)
    tasks = 50 * sum(experiment.reference_seconds.values()) / 2
    assert reference == pytest.approx(tasks + STARTUP_SECONDS)
    assert experiment.timing_source(parameters, tmp_path) is None

    def earlier_run(n_rounds):
        # An earlier run here that took twice the reference times per task.
        (tmp_path / "disjunct.json").write_text(
            json.dumps(
                {
                    "parameters": {"n_rounds": n_rounds},
                    "task_cpu_seconds": {
                        k: 2 * v for k, v in experiment.reference_seconds.items()
                    },
                }
            )
        )

    # A run of other length does not count: its fixed costs do not scale.
    earlier_run(500)
    assert experiment.timing_source(parameters, tmp_path) is None
    assert experiment.estimate_seconds(parameters, 2, tmp_path) == reference
    earlier_run(1000)
    assert experiment.timing_source(parameters, tmp_path) == (
        tmp_path / "disjunct.json"
    )
    assert experiment.estimate_seconds(parameters, 2, tmp_path) == pytest.approx(
        2 * tasks + STARTUP_SECONDS
    )
    # Tasks kept by an interrupted run are not counted; none left, no time.
    n = len(experiment.plan(parameters))
    half = experiment.estimate_seconds(parameters, 2, tmp_path, skip=range(n // 2))
    assert half < 2 * tasks + STARTUP_SECONDS
    assert experiment.estimate_seconds(parameters, 2, skip=range(n)) == 0.0
    assert isinstance(experiment, Experiment)


@pytest.mark.parametrize("name", ["maxsat", "disjunct", "trees"])
def test_kept_task_results_read_back_exactly(name):
    """Every experiment's task results survive their JSON (as a resumed run
    reads them): the same types, the same floats."""
    import numpy as np

    from sklearn_localregret.experiments._checkpoint import decode, encode

    experiment = get_experiment(name)
    parameters = experiment.parameters("quick", n_rounds=20)
    task = experiment.plan(parameters)[0]
    result = task.function(*task.args)
    back = decode(json.loads(json.dumps(encode(result))))

    def same(a, b):
        assert type(a) is type(b) or (np.isscalar(a) and a == b)
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        elif isinstance(a, dict):
            assert list(a) == list(b)
            for key in a:
                same(a[key], b[key])
        elif isinstance(a, (tuple, list)):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                same(x, y)
        else:
            assert a == b

    same(result, back)


def test_stray_files_in_the_checkpoint_folder_run_their_tasks_again(tmp_path):
    """Only the files save() wrote are kept tasks: a copy under another name,
    a file whose index is not its name's or is beyond the plan, an unreadable
    one: their tasks run again (they crashed the plan or the run)."""
    from sklearn_localregret.experiments._checkpoint import TaskCheckpoint

    experiment = get_experiment("disjunct")
    parameters = experiment.parameters("quick", **TINY)
    tasks = experiment.plan(parameters)
    checkpoint = TaskCheckpoint(tmp_path, "disjunct", experiment._identity(parameters))
    checkpoint.save(0, tasks[0].function(*tasks[0].args), 1.0, 1.0)
    kept = (checkpoint.folder / "task-00000.json").read_text()
    assert kept.startswith('{"index": 0,')
    (checkpoint.folder / "task-copy.json").write_text(kept)
    (checkpoint.folder / "task-00002.json").write_text(kept)  # task 0's
    (checkpoint.folder / "task-00003.json").write_text("{}")
    beyond = kept.replace('"index": 0,', '"index": 999,')
    (checkpoint.folder / "task-00999.json").write_text(beyond)
    assert checkpoint.indices(len(tasks)) == {0, 2, 3}  # from the names alone
    assert list(checkpoint.load(len(tasks))) == [0]
    resumed = _run(tmp_path, resume=True)
    assert resumed["kept_tasks"] == 1
    assert resumed["panels"] == _run(tmp_path / "whole")["panels"]
    # The runner itself refuses a finished task that is none of its tasks.
    with pytest.raises(ValueError, match="indices of no task"):
        TaskRunner(1).run(tasks[:2], finished={5: (None, 0.0, 0.0)}, progress=False)

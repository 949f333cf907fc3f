from pathlib import Path

import pytest

from sklearn_localregret.cli import build_parser, main


def test_parser_knows_every_subcommand_and_option():
    parser = build_parser()
    for name in ("maxsat", "disjunct", "trees", "all"):
        args = parser.parse_args(
            [
                name,
                "--quick",
                "--trials",
                "2",
                "--seed",
                "3",
                "--out",
                "x",
                "--jobs",
                "3",
                "--force",
                "--quiet",
            ]
        )
        assert (
            args.command,
            args.quick,
            args.paper,
            args.trials,
            args.seed,
            args.jobs,
            args.force,
        ) == (name, True, False, 2, 3, 3, True)
        assert parser.parse_args([name, "--full"]).paper
        assert parser.parse_args([name]).jobs >= 1
    with pytest.raises(SystemExit):
        parser.parse_args(["nonsense"])


def test_version(capsys):
    import sklearn_localregret

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == (
        f"sklearn-localregret {sklearn_localregret.__version__}\n"
    )


@pytest.mark.parametrize(
    "options",
    [
        ["--quick", "--paper"],
        ["--trials", "0"],
        ["--rounds", "many"],
        ["--jobs", "-1"],
        ["--seed", "-2"],
        # A time estimate of 69444444 h, then numpy's MemoryError traceback.
        ["--rounds", "1000000000000000"],
        # A MemoryError building the task list.
        ["--trials", "100000000"],
    ],
)
def test_bad_experiment_options_exit_2_with_a_message(options, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["maxsat", *options])
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command", [["maxsat", "--quick"], ["streams", "--quick"], ["solve", "x.cnf"]]
)
def test_an_unusable_out_folder_or_seed_is_one_line_and_exit_2(
    command, tmp_path, capsys
):
    # A file as --out, or a folder that cannot be made: NotADirectoryError,
    # FileExistsError or FileNotFoundError tracebacks (exit 1); solve's
    # --seed -1: numpy's traceback after printing its first line.
    taken = tmp_path / "taken"
    taken.write_text("")
    bad = [["--seed", "-1"]]
    if command[0] != "solve":
        bad += [["--out", str(taken)], ["--out", str(taken / "below")]]
    for options in bad:
        with pytest.raises(SystemExit) as exit_info:
            main([*command, *options])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert "error: argument" in err and "Traceback" not in err


def _unwritable_folder(tmp_path):
    """A folder that refuses new files: a read-only one, or, as root (who
    writes there anyway), sysfs's /sys/kernel; else the test is skipped."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    for candidate in (folder, Path("/sys/kernel")):
        try:
            (candidate / "probe").write_text("")
        except OSError:
            return candidate
        (candidate / "probe").unlink()
    pytest.skip("every folder takes files from this user")


@pytest.mark.parametrize("command", ["maxsat", "streams"])
def test_a_folder_that_refuses_files_is_refused_before_the_work(
    command, tmp_path, capsys
):
    # It passed, and the job died with a PermissionError traceback at its
    # first checkpoint (streams: after every run, on streams.csv).
    folder = _unwritable_folder(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--quick", "--out", str(folder)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --out: cannot write in the folder '{folder}': " in err
    assert err.count("\n") == 1 and "Traceback" not in err
    from sklearn_localregret.experiments import run_maxsat

    with pytest.raises(ValueError, match="cannot write in the folder"):
        run_maxsat(folder, scale="quick", progress=False)


def test_the_help_says_what_quick_runs_and_the_bounds(capsys):
    """--quick and --rounds say what each experiment's quick scale runs (it
    said "too few trials for intervals" and "default: 1000" for all)."""
    from sklearn_localregret import cli
    from sklearn_localregret.experiments import EXPERIMENTS, get_experiment
    from sklearn_localregret.experiments._intervals import MIN_TRIALS

    assert list(cli.QUICK_SCALES) == list(EXPERIMENTS)
    assert cli.MIN_TRIALS == MIN_TRIALS
    for name, (trials, rounds, unit) in cli.QUICK_SCALES.items():
        experiment = get_experiment(name)
        quick = experiment.scales["quick"]
        assert (trials, rounds) == (
            quick[experiment.trials_parameter],
            quick["n_rounds"],
        )
        assert unit == ("instances" if name == "maxsat" else "trials")
    helps = {}
    for name in (*EXPERIMENTS, "all"):
        with pytest.raises(SystemExit):
            main([name, "--help"])
        helps[name] = " ".join(capsys.readouterr().out.split())
    assert "maxsat 3 instances of 300 rounds" in helps["maxsat"]
    assert "(300 with --quick)" in helps["disjunct"]
    assert "trees 2 trials of 200 rounds, too few for intervals" in helps["trees"]
    assert "intervals" not in helps["maxsat"] + helps["disjunct"]
    for text in helps.values():
        assert "at most 1000;" in text and "at most 100000;" in text


@pytest.mark.parametrize(
    "option, value, expected",
    [
        ("--rows", "1000000000000", "--rows: expected an integer from 20 to 1000000"),
        ("--seeds", "100000000", "--seeds: expected an integer from 1 to 100, got"),
    ],
)
def test_streams_bounds_its_counts(option, value, expected, tmp_path, capsys):
    # numpy's MemoryError traceback for 10**12 rows; 10**8 seeds built 10**8
    # copies of each stream before the first run.
    with pytest.raises(SystemExit) as exit_info:
        main(["streams", option, value, "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert expected in capsys.readouterr().err
    from sklearn_localregret.experiments.streams import plan_streams

    with pytest.raises(ValueError, match="must be at most"):
        plan_streams(streams=["sea"], n_rows=10**12)


def test_quick_experiment_from_the_command_line_and_its_rerun(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    argv = [
        "disjunct",
        "--quick",
        "--rounds",
        "60",
        "--quiet",
        "--jobs",
        "1",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "disjunct.json").exists()
    assert "Winnow2" in out and "Expected wall time" in out
    assert "Wall time:" in out.splitlines()[-1]
    # Same parameters: skipped, nothing expected to run; --force reruns.
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "already done" in out and "Expected wall time" not in out
    assert (
        f"Already in {tmp_path}/ with these parameters (not run again): "
        "disjunct (finished)." in out
    )
    assert main([*argv, "--force"]) == 0
    assert "already done" not in capsys.readouterr().out


def test_the_paper_scale_says_how_long_it_takes_before_it_starts(
    tmp_path, monkeypatch, capsys
):
    from sklearn_localregret.experiments._runner import Experiment

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Experiment, "run", interrupted)
    assert main(["all", "--paper", "--quiet", "--out", str(tmp_path)]) == 130
    captured = capsys.readouterr()
    assert (
        "paper scale: maxsat 200 instances, disjunct 50 trials, trees 50 "
        "trials" in captured.out
    )
    assert "Expected wall time: about " in captured.out
    assert "No experiment had finished." in captured.err
    assert "Not finished: maxsat (no task finished), disjunct (no task" in captured.err
    assert "Traceback" not in captured.err and not list(tmp_path.iterdir())


def test_ctrl_c_after_an_experiment_keeps_it(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    from sklearn_localregret import experiments
    from sklearn_localregret.experiments._runner import Experiment

    real_run = Experiment.run

    def run_then_interrupt(self, *args, **kwargs):
        if self.name == "trees":
            raise KeyboardInterrupt
        return real_run(self, *args, **kwargs)

    monkeypatch.setattr(Experiment, "run", run_then_interrupt)
    monkeypatch.setattr(
        experiments,
        "EXPERIMENTS",
        {name: experiments.EXPERIMENTS[name] for name in ("disjunct", "trees")},
    )
    code = main(
        [
            "all",
            "--quick",
            "--rounds",
            "60",
            "--quiet",
            "--jobs",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 130
    err = capsys.readouterr().err
    kept = ", ".join(
        str(tmp_path / n) for n in ("disjunct.csv", "disjunct.png", "disjunct.json")
    )
    assert f"Kept (complete): {kept}." in err
    assert "Not finished: trees" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "disjunct.csv",
        "disjunct.json",
        "disjunct.png",
    ]


def test_an_interrupted_experiment_is_counted_and_goes_on(
    tmp_path, monkeypatch, capsys
):
    pytest.importorskip("matplotlib")
    from sklearn_localregret.experiments import _task_runner

    real_call, calls = _task_runner._call, []

    def call(indexed):
        calls.append(indexed[0])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_call(indexed)

    monkeypatch.setattr(_task_runner, "_call", call)
    argv = ["disjunct", "--quick", "--trials", "2", "--rounds", "60", "--quiet"]
    argv += ["--jobs", "1", "--out", str(tmp_path)]
    assert main(argv) == 130
    err = capsys.readouterr().err
    folder = tmp_path / "disjunct.partial"
    assert f"Not finished: disjunct (2 of 6 tasks kept in {folder})" in err
    monkeypatch.undo()
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert (
        f"Already in {tmp_path}/ with these parameters (not run again): "
        "disjunct 2 of 6 tasks." in out
    )
    assert "Expected wall time: about " in out and " for the rest " in out
    assert "disjunct: 2 of 6 tasks kept from an interrupted run" in out
    assert not folder.exists() and (tmp_path / "disjunct.json").exists()

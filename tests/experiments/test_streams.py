"""The stream leaderboard on tiny streams: every learner runs, no label leaks,
failures are recorded and the suite goes on, seeds reproduce, files parse, and
the command line refuses bad input with exit code 2."""

import csv
import json
import mmap
import os

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from sklearn_localregret.cli import main
from sklearn_localregret.datasets import load_stream, make_stream
from sklearn_localregret.experiments.stream_learners import (
    LEARNERS,
    Learner,
    learner_names,
)
from sklearn_localregret.experiments.streams import (
    can_isolate,
    plan_streams,
    run_plan,
    run_streams,
)

NEVER = -1


class LabelPeeker:
    """Remembers the labels it is trained on by row id (column 0) and predicts
    them when the row comes back; unknown rows get a label that is always
    wrong. An honest harness gives it an error of exactly 1."""

    def partial_fit(self, X, y, classes=None):
        self.known = getattr(self, "known", {})
        self.known.update(
            zip(np.asarray(X)[:, 0].astype(int).tolist(), np.asarray(y).tolist())
        )
        return self

    def predict(self, X):
        known = getattr(self, "known", {})
        return np.array([known.get(int(i), NEVER) for i in np.asarray(X)[:, 0]])


class Raises:
    def partial_fit(self, X, y, classes=None):
        raise RuntimeError("this learner cannot learn")

    def predict(self, X):
        raise NotFittedError("nothing learned")


class KillsItsProcess:
    def partial_fit(self, X, y, classes=None):
        os._exit(3)

    def predict(self, X):
        return np.zeros(len(X))


def _indexed(n=60, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.arange(n), rng.integers(0, 2, size=(n, 4))])
    return make_stream((X, rng.integers(0, n_classes, size=n)), name="indexed")


def _boolean(n=60, n_classes=2, seed=0, name="tiny"):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 5))
    y = (X[:, 0] + X[:, 1] * (n_classes - 1)) % n_classes
    return make_stream((X, y), name=name)


def _run(streams, learners, *, isolate=False, n_seeds=2, window=20, **kwargs):
    plan = plan_streams(
        streams=streams,
        learners=learners,
        n_seeds=n_seeds,
        batch_size=10,
        window=window,
        **kwargs,
    )
    return run_plan(plan, progress=False, isolate=isolate)


def test_every_registered_learner_runs_on_a_boolean_stream():
    names = learner_names(available=True)
    board = _run([_boolean(), _boolean(n_classes=3, name="three")], names, n_seeds=1)
    for record in board.records:
        expected = (
            "n/a"
            if record.stream == "three" and LEARNERS[record.learner].binary_only
            else "ok"
        )
        assert record.status == expected, (record.learner, record.message)
        if expected == "ok":
            assert 0 <= record.error <= 1 and record.n_rows == 60
            assert len(record.curve) == len(record.curve_rows) == 6


def test_a_cheating_learner_gets_every_row_wrong():
    board = _run([_indexed()], [("peeker", Learner(lambda seed: LabelPeeker()))])
    assert [r.error for r in board.records] == [1.0, 1.0]


@pytest.mark.parametrize("isolate", [False, True])
def test_a_failing_learner_is_recorded_and_the_suite_goes_on(isolate, tmp_path):
    if isolate and not can_isolate():
        pytest.skip("no fork here")
    learners = [("raises", Learner(lambda seed: Raises())), "gaussian-nb"]
    board = _run([_boolean()], learners, isolate=isolate)
    status = {(r.learner, r.seed): r.status for r in board.records}
    assert status == {
        ("raises", 0): "failed",
        ("raises", 1): "failed",
        ("gaussian-nb", 0): "ok",
        ("gaussian-nb", 1): "ok",
    }
    message = "RuntimeError: this learner cannot learn"
    assert board.records[0].message == message
    board.write(tmp_path)
    with open(tmp_path / "streams.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["status"] for row in rows] == ["failed", "ok", "failed", "ok"]
    assert rows[0]["message"] == message and rows[0]["error"] == ""
    summary = json.loads((tmp_path / "streams.json").read_text())["summary"]
    assert summary[0]["status"] == "failed" and summary[0]["message"] == message
    table = (tmp_path / "streams.md").read_text()
    assert "| tiny | none | failed | **" in table
    assert f"* `raises` on tiny: {message}" in table
    # Peak memory is measured exactly when each run has its own process.
    nb = board.runs("tiny", "gaussian-nb")
    assert all((r.peak_memory_mb is not None) == isolate for r in nb)
    if isolate:
        assert all(r.peak_memory_mb >= 0 for r in nb)


class AllocatesAndReadsMapped:
    """Holds 24 MiB of its own memory and reads every page of a 48 MiB file
    that the parent process mapped, as a forked run runs the code of the
    shared libraries its parent loaded (file-backed pages: shared, not memory
    the learner adds)."""

    mapped = None

    def partial_fit(self, X, y, classes=None):
        if not hasattr(self, "held"):
            # New anonymous pages (malloc might reuse pages its heap holds).
            self.held = mmap.mmap(-1, 24 * 2**20)
            np.frombuffer(self.held, dtype=np.uint8)[:] = 1
            self.pages_read = int(self.mapped[::4096].sum())
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)


def test_peak_memory_counts_the_learners_memory_not_mapped_files(tmp_path):
    """The file's pages, which the run maps back in (48 MiB, as a forked
    process does the code of its libraries), are not counted; the 24 MiB the
    learner holds are."""
    if not can_isolate():
        pytest.skip("no fork here")
    path = tmp_path / "mapped.bin"
    path.write_bytes(np.ones(48 * 2**20, dtype=np.uint8).tobytes())
    AllocatesAndReadsMapped.mapped = np.memmap(path, dtype=np.uint8, mode="r")
    assert int(AllocatesAndReadsMapped.mapped[::4096].sum()) > 0  # resident here
    learner = Learner(lambda seed: AllocatesAndReadsMapped())
    board = _run([_boolean()], [("maps", learner)], isolate=True, n_seeds=1)
    (record,) = board.runs("tiny", "maps")
    assert record.status == "ok", record.message
    assert 23 <= record.peak_memory_mb <= 36, record.peak_memory_mb


def test_a_learner_that_kills_its_process_is_recorded():
    if not can_isolate():
        pytest.skip("no fork here")
    board = _run(
        [_boolean()],
        [("dies", Learner(lambda seed: KillsItsProcess())), "gaussian-nb"],
        isolate=True,
        n_seeds=1,
    )
    assert board.records[0].status == "failed"
    assert board.records[0].message == "the run's process died (exit code 3)"
    assert board.records[1].status == "ok"


def test_seeds_reproduce_the_numbers_exactly():
    learners = ["lr-tree", "lr-disjunct", "sgd"]

    def numbers(seed):
        board = _run(["inverted"], learners, n_rows=80, seed=seed)
        return {
            (r.learner, r.seed): (r.error, r.window_error, r.curve)
            for r in board.records
        }

    first, again, shifted = numbers(7), numbers(7), numbers(8)
    assert first == again
    # Seeds 7, 8 then 8, 9: a (learner, seed) run is the same whatever else ran.
    assert {k: v for k, v in first.items() if k[1] == 8} == {
        k: v for k, v in shifted.items() if k[1] == 8
    }
    assert first != shifted
    # Each seed has its own version of a named stream.
    plan = plan_streams(
        streams=["inverted"], learners=["sgd"], n_rows=80, n_seeds=2, seed=7
    )
    for version, seed in zip(plan.streams["inverted"], (7, 8)):
        expected = load_stream("inverted", n_rows=80, seed=seed)
        np.testing.assert_array_equal(version.X, expected.X)
        np.testing.assert_array_equal(version.y, expected.y)
    assert not np.array_equal(
        plan.streams["inverted"][0].X, plan.streams["inverted"][1].X
    )


def test_capped_learner_sees_the_first_rows_only():
    capped = Learner(LEARNERS["sgd"].make, "capped", max_rows=30)
    board = _run([_boolean()], [("capped", capped), "sgd"], n_seeds=1)
    assert [r.n_rows for r in board.records] == [30, 60]
    assert "capped*" in board.markdown()


def test_files_exist_and_parse(tmp_path):
    board = run_streams(
        tmp_path,
        streams=["alternating", _boolean(n=80)],
        learners=["lr-tree", "sgd"],
        n_rows=80,
        n_seeds=2,
        batch_size=10,
        window=20,
        progress=False,
        isolate=False,
    )
    for stem in ("streams", "streams_summary", "streams_curves"):
        with open(tmp_path / f"{stem}.csv") as handle:
            rows = list(csv.DictReader(handle))
        # One row per run, per (stream, learner), per checkpoint of 10 rows.
        assert len(rows) == {"streams": 8, "streams_summary": 4}.get(stem, 32)

    def read(stem):
        with open(tmp_path / f"{stem}.csv") as handle:
            return list(csv.DictReader(handle))

    pairs = [(s, name) for s in ("alternating", "tiny") for name in ("lr-tree", "sgd")]
    runs = read("streams")
    assert sorted((r["stream"], r["learner"], r["seed"]) for r in runs) == sorted(
        (s, name, seed) for s, name in pairs for seed in ("0", "1")
    )
    summary = read("streams_summary")
    assert [(r["stream"], r["learner"]) for r in summary] == pairs
    for row in summary:  # the summary's error is the mean of its runs'
        errors = [
            float(r["error"])
            for r in runs
            if (r["stream"], r["learner"]) == (row["stream"], row["learner"])
        ]
        assert float(row["error"]) == pytest.approx(np.mean(errors))
    curves = read("streams_curves")
    assert [(r["stream"], r["learner"], int(r["row"])) for r in curves] == [
        (s, name, n) for s, name in pairs for n in range(10, 81, 10)
    ]
    doc = json.loads((tmp_path / "streams.json").read_text())
    assert doc["streams"]["alternating"]["drift"] == "adversarial"
    assert doc["settings"]["seeds"] == [0, 1]
    curve = doc["curves"]["alternating"]["sgd"]
    assert curve["rows"][-1] == 80 and len(curve["mean"]) == len(curve["low"])
    # SGD follows the last labels: on labels flipping every 10 rows, predicted
    # 10 rows at a time, it is wrong on every row (the first round unfitted).
    assert [r.error for r in board.runs("alternating", "sgd")] == [1.0, 1.0]
    pytest.importorskip("matplotlib")
    for name in ("alternating", "tiny"):
        png = (tmp_path / f"streams_{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000


def test_plan_refuses_bad_requests():
    with pytest.raises(ValueError, match="Unknown stream 'sae'"):
        plan_streams(streams=["sae"])
    with pytest.raises(ValueError, match="Unknown learner 'sgdd'"):
        plan_streams(streams=["inverted"], learners=["sgdd"])
    with pytest.raises(ValueError, match="listed twice"):
        plan_streams(streams=["inverted"], learners=["sgd", "sgd"], n_rows=20)
    with pytest.raises(ValueError, match="listed twice"):
        plan_streams(streams=["inverted", "inverted"], n_rows=20)
    with pytest.raises(ValueError, match="n_seeds must be an integer >= 1"):
        plan_streams(streams=["inverted"], n_seeds=0)
    # One round the size of the stream: every learner predicts it unfitted.
    with pytest.raises(ValueError, match="batch_size 20 is not below the 20 rows"):
        plan_streams(streams=["inverted"], n_rows=20, batch_size=20)


# -- the command line --------------------------------------------------------------


def _fails_cleanly(argv, capsys, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err
    assert "Traceback" not in err


def test_cli_bad_input_exits_with_code_2(tmp_path, capsys):
    out = ["--out", str(tmp_path / "out"), "--quiet"]
    _fails_cleanly(
        ["streams", "--streams", "sae", *out], capsys, "Unknown stream 'sae'"
    )
    _fails_cleanly(
        ["streams", "--learners", "sgdd", *out], capsys, "Unknown learner 'sgdd'"
    )
    path = tmp_path / "data.csv"
    path.write_text("a,b,label\n1,0,x\n0,1,y\n")
    _fails_cleanly(
        ["streams", "--csv", str(path), "--label-column", "class", *out],
        capsys,
        "has no label column 'class'",
    )
    path.write_text("a,b,label\n1,0,x\n0,1,x\n")
    _fails_cleanly(["streams", "--csv", str(path), *out], capsys, "single class")
    _fails_cleanly(
        ["streams", "--csv", str(tmp_path / "nope.csv"), *out], capsys, "nope.csv"
    )
    _fails_cleanly(
        ["streams", "--python", "no_such_module:x", *out],
        capsys,
        "cannot import 'no_such_module'",
    )
    # A stream's own error names the option that added it.
    _fails_cleanly(
        ["streams", "--csv", str(tmp_path / "nope.csv"), *out],
        capsys,
        f"--csv {tmp_path / 'nope.csv'}: No such file",
    )
    _fails_cleanly(
        ["streams", "--python", "os:path", *out], capsys, "--python os:path: A stream"
    )
    _fails_cleanly(
        ["streams", "--drift-points", "30", *out], capsys, "--drift-points applies"
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "option, value, expected",
    [
        ("--rows", "19", "argument --rows: expected an integer from 20 to"),
        ("--seeds", "0", "argument --seeds: expected an integer from 1 to"),
        ("--batch-size", "0", "argument --batch-size: expected an integer >= 1"),
        ("--window", "-1", "argument --window: expected an integer >= 1"),
        ("--jobs", "0", "argument --jobs: expected an integer >= 1"),
        ("--drift-points", "-3", "argument --drift-points: expected an integer >= 0"),
    ],
)
def test_cli_bad_numbers_name_their_option(option, value, expected, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["streams", option, value, "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


def test_cli_runs_a_csv_stream(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 3))
    path = tmp_path / "mine.csv"
    lines = ["a,b,c,label"] + [f"{a},{b},{c},{a | b}" for a, b, c in X]
    path.write_text("\n".join(lines) + "\n")
    argv = [
        "streams",
        "--csv",
        str(path),
        "--learners",
        "lr-tree",
        "gaussian-nb",
        "--seeds",
        "2",
        "--batch-size",
        "10",
        "--window",
        "20",
        "--drift-points",
        "30",
        "--quiet",
        "--out",
        str(tmp_path / "out"),
    ]
    assert main([*argv, "--rows", "20"]) == 0  # --rows: named streams only
    out = capsys.readouterr().out
    assert "`python -m sklearn_localregret streams --csv" in out
    assert "; 60 rows per stream;" in out
    assert "| mine | abrupt at 30 |" in out
    doc = json.loads((tmp_path / "out" / "streams.json").read_text())
    assert list(doc["streams"]) == ["mine"]
    assert {r["status"] for r in doc["runs"]} == {"ok"}


def test_cli_quick_runs_every_learner(tmp_path, capsys):
    pytest.importorskip("river")
    argv = [
        "streams",
        "--quick",
        "--streams",
        "stagger",
        "phishing",
        "--quiet",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 0
    doc = json.loads((tmp_path / "streams.json").read_text())
    assert set(doc["learners"]) == set(LEARNERS)
    assert doc["settings"]["n_rows"] == 100 and doc["settings"]["n_seeds"] == 2
    stagger = {
        r["learner"]: r["status"] for r in doc["runs"] if r["stream"] == "stagger"
    }
    assert set(stagger.values()) == {"ok"}
    assert "## Error over the whole stream" in capsys.readouterr().out


def test_cli_without_river_says_what_it_leaves_out(tmp_path, capsys, monkeypatch):
    """Without River the default run drops the River streams and learners: it
    says so on stderr and in streams.md, with the install command."""
    from sklearn_localregret.datasets import streams as stream_module
    from sklearn_localregret.experiments import stream_learners

    monkeypatch.setattr(stream_module, "_river_installed", lambda: False)
    monkeypatch.setattr(stream_learners, "_river_installed", lambda: False)
    river_streams = [n for n, s in stream_module.STREAMS.items() if s.needs_river]
    river_learners = [n for n, lr in LEARNERS.items() if lr.needs_river]
    assert river_streams and river_learners
    argv = ["streams", "--quick", "--rows", "40", "--seeds", "1", "--quiet"]
    assert main([*argv, "--no-isolate", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    note = (
        f"River is not installed: left out {len(river_streams)} of "
        f"{len(stream_module.STREAMS)} streams ({', '.join(sorted(river_streams))})"
        f" and {len(river_learners)} of {len(LEARNERS)} learners "
        f"({', '.join(sorted(river_learners))}). Install it to run them: "
        "pip install 'sklearn-localregret[river]'"
    )
    assert note in captured.err
    assert note in (tmp_path / "streams.md").read_text()
    doc = json.loads((tmp_path / "streams.json").read_text())
    assert not set(doc["streams"]) & set(river_streams)
    # Asked for by name, nothing is left out silently: no note.
    named = ["--streams", "mushroom", "--learners", "sgd", "--no-isolate"]
    assert main([*argv, *named, "--out", str(tmp_path / "named")]) == 0
    assert "River is not installed" not in capsys.readouterr().err


def test_cli_report_of_a_short_stream_says_what_it_holds(tmp_path, capsys):
    # A 60-row stream under a 500-row window, one seed, a capped learner
    # that saw it all: no "(in parentheses, not ranked)" footnote, "1 seed",
    # and the window said to be the stream's all; "--learners all" runs.
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(60, 2))
    path = tmp_path / "short.csv"
    lines = ["a,b,label"] + [f"{a},{b},{a | b}" for a, b in X]
    path.write_text("\n".join(lines) + "\n")
    out_dir = str(tmp_path / "out")
    argv = ["streams", "--csv", str(path), "--seeds", "1", "--quiet", "--no-isolate"]
    assert main([*argv, "--learners", "lr-tree-swap", "--out", out_dir]) == 0
    out = capsys.readouterr().out
    assert "over 1 seed)" in out and "1 seeds" not in out
    assert "rows of each stream only" not in out
    assert "last 500 rows (or fewer: a shorter stream's all)" in out
    assert main([*argv, "--learners", "all", "--quick", "--out", out_dir]) == 0
    doc = json.loads((tmp_path / "out" / "streams.json").read_text())
    assert "gaussian-nb" in doc["learners"] and "lr-tree" in doc["learners"]

"""The stream leaderboard's figures: one file per stream, and only this run's
in the folder."""

import numpy as np
import pytest

from sklearn_localregret.cli import main
from sklearn_localregret.datasets import make_stream
from sklearn_localregret.experiments._stream_files import figure_names
from sklearn_localregret.experiments.streams import run_streams

pytest.importorskip("matplotlib")


def _stream(name, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(60, 4))
    return make_stream((X, X[:, 0] | X[:, 1]), name=name)


def _leaderboard(out, streams):
    return run_streams(
        out,
        streams=streams,
        learners=["sgd"],
        n_seeds=1,
        batch_size=10,
        window=20,
        progress=False,
        isolate=False,
    )


def test_streams_whose_names_differ_in_odd_characters_keep_their_figures(
    tmp_path, capsys
):
    # "my data" and "my_data" both drew streams_my_data.png: one figure lost,
    # and the command counted a file that was not there.
    names = figure_names(["my data", "my_data", "My_Data", "my_data-2"])
    assert list(names.values()) == [
        "streams_my_data.png",
        "streams_my_data-2.png",
        "streams_My_Data-3.png",  # some file systems ignore letter case
        "streams_my_data-2-2.png",
    ]
    board = _leaderboard(tmp_path / "api", [_stream("my data"), _stream("my_data", 1)])
    paths = board.write(tmp_path / "api")
    assert len(set(paths)) == len(paths) and all(p.exists() for p in paths)
    assert sorted(p.name for p in (tmp_path / "api").glob("*.png")) == [
        "streams_my_data-2.png",
        "streams_my_data.png",
    ]
    for name in ("my data", "my_data"):
        (tmp_path / f"{name}.csv").write_text(
            "a,b,label\n" + "".join(f"{i % 2},{i % 3},{i % 2}\n" for i in range(60))
        )
    out = tmp_path / "cli"
    argv = ["streams", "--no-isolate", "--quiet", "--learners", "sgd", "--seeds", "1"]
    argv += ["--csv", str(tmp_path / "my data.csv")]
    argv += ["--csv", str(tmp_path / "my_data.csv"), "--out", str(out)]
    assert main(argv) == 0
    files = len(list(out.iterdir()))
    assert files == 7 and f"; {files} files in {out}/)" in capsys.readouterr().out


def test_an_earlier_leaderboards_figures_are_removed(tmp_path, capsys):
    # A second run into the folder replaced the CSV, JSON and markdown but
    # left the first run's figures of other streams beside them.
    _leaderboard(tmp_path, [_stream("first"), _stream("shared")])
    (tmp_path / "streams_notes.txt").write_text("the user's")
    (tmp_path / "plot.png").write_text("the user's")
    (tmp_path / "streams_a b.png").write_text("not a name the command writes")
    _leaderboard(tmp_path, [_stream("shared"), _stream("second")])
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "plot.png",
        "streams.csv",
        "streams.json",
        "streams.md",
        "streams_a b.png",
        "streams_curves.csv",
        "streams_notes.txt",
        "streams_second.png",
        "streams_shared.png",
        "streams_summary.csv",
    ]


def test_a_write_stopped_midway_leaves_whole_files(tmp_path, monkeypatch):
    # The JSON, markdown, CSV and figures were written in place: a stop while
    # writing one left it truncated where the last run's had been.
    import csv
    from pathlib import Path

    from matplotlib.figure import Figure

    out = tmp_path / "out"
    board = _leaderboard(out, [_stream("a")])
    board.write(out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def half_then_stop(write):
        def stopped(self, *args, **kwargs):
            write(self, *args, **kwargs)  # a part of the file is out...
            raise KeyboardInterrupt  # ... when the stop comes

        return stopped

    def half_text(path, text, *args, **kwargs):
        Path.write_bytes(path, text[: len(text) // 2].encode())

    def half_figure(figure, path, *args, **kwargs):
        Path(path).write_bytes(b"\x89PNG")

    stops = [
        (Path, "write_text", half_then_stop(half_text), "streams.json"),
        (
            csv.DictWriter,
            "writerow",
            half_then_stop(csv.DictWriter.writerow),
            "streams.csv",
        ),
        (Figure, "savefig", half_then_stop(half_figure), "streams_a.png"),
    ]
    for owner, name, stopped, stopped_in in stops:
        monkeypatch.setattr(owner, name, stopped)
        with pytest.raises(KeyboardInterrupt):
            board.write(out)
        monkeypatch.undo()
        after = {p.name: p.read_bytes() for p in out.iterdir()}
        assert after.keys() == before.keys()  # no temporary file left
        assert after[stopped_in] == before[stopped_in], stopped_in

import pytest

from sklearn_localregret.cli import build_parser, main


def test_parser_knows_every_subcommand_and_option():
    parser = build_parser()
    for name in ("maxsat", "disjunct", "trees", "all"):
        args = parser.parse_args([name, "--quick", "--trials", "2", "--seed", "3",
                                  "--out", "x"])
        assert (args.command, args.quick, args.trials, args.seed) == (name, True, 2, 3)
    with pytest.raises(SystemExit):
        parser.parse_args(["nonsense"])


def test_quick_experiment_from_the_command_line(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["disjunct", "--quick", "--quiet", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "disjunct.json").exists()
    assert "Winnow2" in capsys.readouterr().out

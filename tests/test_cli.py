import numpy as np
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


def test_solve_prints_a_model_line_and_its_weight(tmp_path, capsys):
    # (x1 or x2), (not x1), weight 5 on (not x2 or x3), and x3 alone.
    path = tmp_path / "tiny.wcnf"
    path.write_text("p wcnf 3 4 100\n1 1 2 0\n1 -1 0\n5 -2 3 0\n1 3 0\n")
    assert main(["solve", str(path), "--passes", "30", "--seed", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    model = [int(tok) for tok in out[0].split()[1:-1]]
    assert out[0].startswith("v ") and sorted(map(abs, model)) == [1, 2, 3]
    # Python bools: numpy's bool addition would be a logical or.
    assignment = [bool(v) for v in np.array(model) > 0]
    weight = (
        (assignment[0] or assignment[1])
        + (not assignment[0])
        + 5 * ((not assignment[1]) or assignment[2])
        + assignment[2]
    )
    assert out[1] == (
        f"c satisfied weight {weight:g} of 8 (4 clauses, 3 variables, "
        "30 passes, 120 rounds)"
    )
    # The optimum (x1 false, x2 true, x3 true) satisfies all 8; online local
    # search on 120 rounds of this tiny formula finds it.
    assert weight == 8


def test_quick_experiment_from_the_command_line(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["disjunct", "--quick", "--quiet", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "disjunct.json").exists()
    assert "Winnow2" in capsys.readouterr().out

"""``.pre-commit-config.yaml`` runs CI's checks, locally, with nothing to download."""

import shlex
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).parents[1]


def _ci_command() -> str:
    """The README's test command, between its markers (what .ci/run runs)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    inside = text.split("<!-- test-command -->")[1]
    return " ".join(
        line for line in inside.splitlines() if line and not line.startswith("```")
    )


def test_every_hook_is_local_and_runs_a_check_of_ci():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    repos = config["repos"]
    assert [repo["repo"] for repo in repos] == ["local"]  # no network
    hooks = repos[0]["hooks"]
    assert all(hook["language"] == "system" for hook in hooks)
    ci = [shlex.split(part) for part in _ci_command().split("&&")]
    for hook in hooks:
        entry = shlex.split(hook["entry"])
        assert entry in ci, f"{hook['id']}: {hook['entry']!r} is not a step of CI"
    checks = [shlex.split(hook["entry"]) for hook in hooks]
    for step in ci:  # and every check of CI has its hook
        if step[:1] == ["ruff"] or step[:3] == ["python", "-m", "mypy"]:
            assert step in checks

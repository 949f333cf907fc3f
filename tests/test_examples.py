"""Every script in examples/ runs and prints something.

The ``plot_*.py`` scripts are the sphinx-gallery examples (``docs/conf.py``
runs them too): here they draw on matplotlib's non-interactive Agg backend,
must leave at least one figure, and their figures are closed after each run.
An example whose optional dependency (River, dask-ml, PySAT, ...) is not
installed is skipped, as the interop tests are.
"""

import runpy
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("*.py"))
PLOT_EXAMPLES = [path for path in EXAMPLES if path.name.startswith("plot_")]
# Top-level modules the examples may need beyond the test requirements.
OPTIONAL = {
    "dask",
    "dask_ml",
    "distributed",
    "matplotlib",
    "pandas",
    "pysat",
    "river",
}


@pytest.fixture
def pyplot():
    """pyplot on the Agg backend (None without matplotlib); closes all figures."""
    try:
        import matplotlib
    except ImportError:
        yield None
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.close("all")
    yield plt
    plt.close("all")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path, capsys, pyplot):
    try:
        runpy.run_path(str(path), run_name="__main__")
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in OPTIONAL:
            pytest.skip(f"{path.name} needs {exc.name}")
        raise
    assert capsys.readouterr().out.strip()
    if path.name.startswith("plot_"):
        assert pyplot is not None and pyplot.get_fignums(), "no figure drawn"


@pytest.mark.parametrize("path", PLOT_EXAMPLES, ids=lambda p: p.name)
def test_gallery_example_has_a_title(path):
    """sphinx-gallery takes the title from the docstring's first RST heading."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == '"""'
    title, underline = lines[1], lines[2]
    assert title.strip() and set(underline) == {"="}
    assert len(underline) >= len(title)
    assert "# %%" in lines


def _readme_block(after: str, fence: str) -> str:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    opening = f"```{fence}\n"
    start = readme.index(opening, readme.index(after)) + len(opening)
    return readme[start : readme.index("```\n", start)]


def test_readme_quickstart_is_the_script_and_its_output(capsys):
    """The README shows examples/quickstart.py whole (its prints included) and
    exactly what it prints."""
    path = Path(__file__).parents[1] / "examples" / "quickstart.py"
    body = path.read_text(encoding="utf-8").split('"""', 2)[2].lstrip("\n")
    assert _readme_block("## Quickstart", "python") == body
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out == _readme_block("\nprints\n", "text")

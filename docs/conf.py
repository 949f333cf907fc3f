"""Sphinx configuration: API reference (autosummary + numpydoc), user guide,
and the example gallery (sphinx-gallery runs examples/plot_*.py).

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html``.
"""

from importlib.metadata import version as _version

import matplotlib

matplotlib.use("Agg")  # the gallery draws figures without a screen

project = "sklearn_localregret"
author = "The sklearn_localregret developers"
copyright = "2026, " + author
release = _version("sklearn_localregret")
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "auto_examples/*.ipynb",
    "**.py.md5",
    "auto_examples/*.zip",
]
root_doc = "index"

# -- API reference --------------------------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": True}
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
numpydoc_show_class_members = False  # autosummary lists them instead
numpydoc_class_members_toctree = False

# No intersphinx: the build must work offline (CI has no network), and a
# failed inventory fetch is a warning, which -W turns into an error.

# -- example gallery ------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # run every plot_*.py (all of them)
    "ignore_pattern": r"quickstart\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "within_subsection_order": "FileNameSortKey",
    "reference_url": {"sklearn_localregret": None},
    # Each API page lists the examples that use it (minigallery).
    "doc_module": ("sklearn_localregret",),
    "backreferences_dir": "api/generated/backreferences",
}

# -- HTML -----------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "sklearn_localregret"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}

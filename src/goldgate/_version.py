"""goldgate's version, in a module of its own so that any stage can name it without importing
the package's public face (and, through it, every stage).

This is the version's one home: pyproject.toml reads it (``[tool.setuptools.dynamic]``), the
composite action's install step compares the installed one with it, and CHANGELOG.md's newest
release names it (docs/releasing.md says how a version is cut)."""

__version__ = "0.1.0"

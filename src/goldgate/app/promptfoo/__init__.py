"""``goldgate import promptfoo``: a promptfoo configuration as a goldgate project that gives
its tests the verdicts promptfoo gives them (docs/promptfoo.md).

``source`` reads the configuration as promptfoo 0.123 does (``files``, ``prompts``,
``testfiles``, ``csvrows``), ``templates`` renders its
Nunjucks, ``providers`` makes workflows, ``assertions`` expectations, ``project`` the files,
``command`` writes them; ``checks_module`` is the ``promptfoo_checks.py`` written beside the
project (the custom scorer and the echo target).
"""

__all__ = [
    "assertions",
    "checks_module",
    "command",
    "kinds",
    "project",
    "prompts",
    "providers",
    "source",
    "templates",
    "testfiles",
]

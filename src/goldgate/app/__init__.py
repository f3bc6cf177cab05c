"""The commands: one use case per module (check, evaluate, replay, compare, render, merge,
evals, adjudication, action, schema, the fork hand-off; ``renderpass``: every rendering
from one pass over a streamed report), and ``conclude``, the one place a
command's refusal or summary is written. The only stage that prints; ``goldgate.cli`` parses
the command line and calls one function here.

Below it, in the order imports run: ``github`` (the GitHub edge), ``render`` (pure text),
``comparison`` (replay and compare), ``evals``, ``run``, ``report``, ``scoring``, ``gold``,
``base``.
"""

__all__ = [
    "action",
    "adjudication",
    "check",
    "commandline",
    "compare",
    "conclude",
    "errors",
    "evals",
    "evaluate",
    "forkcomment",
    "init",
    "merge",
    "progress",
    "render",
    "renderpass",
    "replay",
    "schema",
    "starter",
    "supervisor",
]

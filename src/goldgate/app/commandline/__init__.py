"""The command line's declarations, one module per command or group; ``goldgate.cli``
assembles them into the root app and maps what they raise to exit codes.

- ``shared``: what several commands declare alike (``--config``, ``--format``, the limits
  of ``--timeout`` and ``--repeat``) and do alike (exit with a code, supervise a run);
- ``init``: ``goldgate init``, the starter project (``goldgate.app.init``);
- ``evaluate``: ``goldgate evaluate`` and its many options (run, ``--check``, ``--replay``,
  ``--compare``);
- ``report``: ``goldgate report ...``: render a report, merge shards, a fork's comment;
- ``evals``: ``goldgate evals run`` and ``regrade``;
- ``adjudication``: ``goldgate adjudication export`` and ``apply``;
- ``judge``: ``goldgate judge calibrate``.

Each command parses, calls one ``goldgate.app`` function (imported inside the command, so
that ``goldgate --help`` loads none of them) and exits with its code. No ``from __future__
import annotations`` in these modules: typer reads every command's hints at start-up.
"""

__all__ = ["adjudication", "evals", "evaluate", "init", "judge", "report", "shared"]

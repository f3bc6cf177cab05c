"""Building the target a workflow's settings describe."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goldgate.gold.settings.models import TargetSettings
    from goldgate.run.targets.base import Target


def build_target(
    target_settings: TargetSettings,
    *,
    project_root: Path,
    search_paths: Sequence[Path] = (),
    environ: Mapping[str, str] = os.environ,
    http_timeout: float | None = None,
    kill_grace: float | None = None,
) -> Target:
    """The target for one workflow. Nothing is imported, started or contacted here: call
    ``load()`` on the result before running anything (python targets import then).

    Commands run in ``project_root`` with ``environ`` as their environment; python targets
    import with ``search_paths`` first on ``sys.path``; http header values are read from
    ``environ`` at each call. ``http_timeout`` and ``kill_grace`` default to those of the http
    and command targets. Only the module of the target's own kind is imported: a python
    target's run does not load the http client or subprocess machinery.
    """
    limit = target_settings.max_result_bytes
    if target_settings.python is not None:
        from goldgate.run.targets.python_target import PythonTarget

        return PythonTarget(target_settings.python, search_paths, limit)
    if target_settings.command is not None:
        from goldgate.run.targets.command_target import DEFAULT_KILL_GRACE, CommandTarget

        return CommandTarget(
            target_settings.command,
            project_root,
            limit,
            env=dict(environ),
            kill_grace=DEFAULT_KILL_GRACE if kill_grace is None else kill_grace,
        )
    from goldgate.run.targets.http_target import DEFAULT_HTTP_TIMEOUT, HttpTarget

    assert target_settings.http is not None
    return HttpTarget(
        target_settings.http.url,
        target_settings.http.headers,
        limit,
        environ,
        timeout=DEFAULT_HTTP_TIMEOUT if http_timeout is None else http_timeout,
    )

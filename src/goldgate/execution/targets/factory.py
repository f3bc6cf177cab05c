"""Building the target a workflow's settings describe."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from goldgate.execution.targets.base import Target
from goldgate.execution.targets.command_target import DEFAULT_KILL_GRACE, CommandTarget
from goldgate.execution.targets.http_target import DEFAULT_HTTP_TIMEOUT, HttpTarget
from goldgate.execution.targets.python_target import PythonTarget
from goldgate.settings.models import TargetSettings


def build_target(
    target_settings: TargetSettings,
    *,
    project_root: Path,
    search_paths: Sequence[Path] = (),
    environ: Mapping[str, str] = os.environ,
    http_timeout: float = DEFAULT_HTTP_TIMEOUT,
    kill_grace: float = DEFAULT_KILL_GRACE,
) -> Target:
    """The target for one workflow. Nothing is imported, started or contacted here: call
    ``load()`` on the result before running anything (python targets import then).

    Commands run in ``project_root`` with ``environ`` as their environment; python targets
    import with ``search_paths`` first on ``sys.path``; http header values are read from
    ``environ`` at each call.
    """
    limit = target_settings.max_result_bytes
    if target_settings.python is not None:
        return PythonTarget(target_settings.python, search_paths, limit)
    if target_settings.command is not None:
        return CommandTarget(
            target_settings.command,
            project_root,
            limit,
            env=dict(environ),
            kill_grace=kill_grace,
        )
    assert target_settings.http is not None
    return HttpTarget(
        target_settings.http.url,
        target_settings.http.headers,
        limit,
        environ,
        timeout=http_timeout,
    )

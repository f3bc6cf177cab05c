"""Building the target a workflow's settings describe, through the registry of target kinds.

``TARGET_KINDS`` maps each kind (a field of ``gold.settings.models.TargetSettings``) to the
builder in its own module, ``build(kind_settings, context) -> Target``, named by import path
so that only the module of the kind a workflow uses is ever imported. A new kind is its
module in this folder plus one line here, and its settings as one field of
``TargetSettings`` (gold never imports run, so the settings cannot register themselves
here); see docs/extending.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldgate.run.targets.base import TargetContext

if TYPE_CHECKING:
    from goldgate.gold.settings.models import TargetSettings
    from goldgate.run.targets.base import Target

TARGET_KINDS: dict[str, str] = {
    "python": "goldgate.run.targets.python_target:build",
    "command": "goldgate.run.targets.command_target:build",
    "http": "goldgate.run.targets.http_target:build",
    "model": "goldgate.run.targets.model_target:build",
}
"""Target kind → ``module:function`` of its builder, imported on first use."""


def builder(kind: str) -> Callable[[Any, TargetContext], Target]:
    """The builder of target kind ``kind``, its module imported now; ``LookupError`` for a
    kind the settings know and this registry does not (a kind added in one place only)."""
    path = TARGET_KINDS.get(kind)
    if path is None:
        raise LookupError(f"no target kind {kind!r} is registered in TARGET_KINDS")
    module, _, name = path.partition(":")
    function: Callable[[Any, TargetContext], Target] = getattr(import_module(module), name)
    return function


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
    context = TargetContext(
        project_root=project_root,
        max_result_bytes=target_settings.max_result_bytes,
        search_paths=tuple(search_paths),
        environ=environ,
        http_timeout=http_timeout,
        kill_grace=kill_grace,
    )
    return builder(target_settings.kind)(target_settings.kind_settings, context)

"""build_target: one target per kind, nothing imported, started or contacted early."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from goldgate.base.errors import InvalidInputError
from goldgate.gold.settings.models import TargetSettings
from goldgate.run.targets import (
    CommandTarget,
    HttpTarget,
    PythonTarget,
    TargetRequest,
    build_target,
)

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent / "fixtures"
SECRET = "s3cr3t-PAYLOAD-value-7731"  # what conftest.request_ carries


def settings(**values: object) -> TargetSettings:
    return TargetSettings.model_validate(values)


async def test_python(tmp_path: Path, request_: TargetRequest) -> None:
    target = build_target(
        settings(python="gg_pytargets:echo", max_result_bytes=5000),
        project_root=tmp_path,
        search_paths=[FIXTURES],
    )
    assert isinstance(target, PythonTarget)
    assert target.max_result_bytes == 5000
    target.load()
    assert (await target(request_)).document["execution"] == {"status": "completed"}
    assert target.describe() == {"kind": "python", "python": "gg_pytargets:echo"}


def test_python_import_problems_surface_at_load(tmp_path: Path) -> None:
    target = build_target(
        settings(python="gg_missing_module_x:run"), project_root=tmp_path, search_paths=[]
    )
    with pytest.raises(InvalidInputError, match="gg_missing_module_x:run"):
        target.load()


@pytest.mark.slow
async def test_command_runs_in_the_project_root(tmp_path: Path, request_: TargetRequest) -> None:
    code = "import json, os, sys; sys.stdin.read(); json.dump({'cwd': os.getcwd()}, sys.stdout)"
    target = build_target(
        settings(command=[sys.executable, "-c", code]),
        project_root=tmp_path,
        search_paths=[],
        environ={"PATH": "/usr/bin:/bin"},
    )
    assert isinstance(target, CommandTarget)
    target.load()
    assert (await target(request_)).document == {"cwd": str(tmp_path)}
    assert target.describe()["kind"] == "command"


def test_http(tmp_path: Path) -> None:
    target = build_target(
        settings(
            http={
                "url": "http://127.0.0.1:9/run",
                "headers": {"Authorization": {"env": "GG_TOKEN", "prefix": "Bearer "}},
            },
            max_result_bytes=10,
        ),
        project_root=tmp_path,
        search_paths=[],
        environ={"GG_TOKEN": "value-never-shown"},
        http_timeout=3.0,
    )
    assert isinstance(target, HttpTarget)
    assert target.timeout == 3.0
    assert target.max_result_bytes == 10
    assert target.describe() == {
        "kind": "http",
        "url": "http://127.0.0.1:9/run",
        "headers": ["Authorization"],
    }

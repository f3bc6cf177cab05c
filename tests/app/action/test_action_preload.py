"""The one-process action (`goldgate action`) imports what concluding needs before user code
runs: afterwards it reads no bytecode (`seal.run_sealed`), so a module first imported then
would be compiled from its source."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from goldgate.app.action import modes


@pytest.mark.parametrize(("mode", "preloaded"), [("evaluate", True), ("compare", False)])
def test_publishing_is_imported_before_user_code_runs_and_only_then(
    mode: str, preloaded: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    monkeypatch.setattr(modes, "_publishing_imported", lambda: order.append("imported"))
    monkeypatch.setattr(modes, "run_mode", lambda run, inputs: order.append("ran") or 0)
    monkeypatch.chdir(tmp_path)
    env = {"INPUT_MODE": mode, "GITHUB_WORKSPACE": str(tmp_path), "INPUT_COMMENT": "off"}
    assert modes.run_action(env, out=lambda line: None) == 0
    assert order == (["imported", "ran"] if preloaded else ["ran"])


@pytest.mark.slow  # a fresh interpreter
def test_the_publishing_modules_and_their_libraries_are_imported() -> None:
    names = ("goldgate.app.action.publish", "goldgate.render.html", "github", "httpx")
    code = (
        "import sys\nfrom goldgate.app.action import modes\nmodes._publishing_imported()\n"
        f"print([name for name in {names!r} if name not in sys.modules])"
    )
    command = [sys.executable, "-I", "-c", code]
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_module_that_cannot_be_imported_only_loses_the_speed_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(modes, "_PUBLISHING_LIBRARIES", ("goldgate_no_such_module", "httpx"))
    modes._publishing_imported()
    assert "httpx" in sys.modules

"""Running examples/workflows/fork-comment.yml: its goldgate step (the real CLI, as the
workflow runs it) and its github-script on Node with GitHub's client faked: what it was
asked to post, or why it refused."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from .support import REPO_ROOT

WORKFLOW = REPO_ROOT / "examples" / "workflows" / "fork-comment.yml"
HEAD_SHA = "a" * 40
HEAD_REPOSITORY = "someone/fork"

# The script as github-script runs it (an async function body with core, github, context),
# with a fake client recording what it was asked to do.
HARNESS = r"""
const fs = require("node:fs");
const calls = [];
let failed = null;
const core = { setFailed: (message) => { failed = message; },
               warning: (message) => { calls.push(["warning", message]); } };
const pull = JSON.parse(process.env.FAKE_PULL);
const existing = JSON.parse(process.env.FAKE_COMMENTS);
const github = {
  paginate: async (method, options) => {
    calls.push(["list", options.issue_number]);
    return existing;
  },
  rest: {
    pulls: {
      get: async (options) => { calls.push(["pull", options.pull_number]); return { data: pull }; },
    },
    checks: {
      create: async (o) => { calls.push(["checks.create", o]); return { data: { id: 77 } }; },
      update: async (o) => { calls.push(["checks.update", o]); return { data: {} }; },
    },
    issues: {
      listComments: "listComments",
      updateComment: async (o) => { calls.push(["update", o.comment_id, o.body]); },
      createComment: async (o) => { calls.push(["create", o.issue_number, o.body]); },
    },
  },
};
const context = { repo: { owner: "octo", repo: "triage" },
                  payload: JSON.parse(process.env.FAKE_PAYLOAD) };
const script = fs.readFileSync(process.env.SCRIPT, "utf8");
const run = new Function("require", "core", "github", "context", "process",
  `return (async () => {\n${script}\n})();`);
run(require, core, github, context, process)
  .then(() => { console.log(JSON.stringify({ failed, calls })); })
  .catch((error) => { console.log(JSON.stringify({ failed: "threw: " + error, calls })); });
"""


def workflow_script() -> str:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    steps = workflow["jobs"]["comment"]["steps"]
    (post,) = [step for step in steps if step.get("uses", "").startswith("actions/github-script")]
    return str(post["with"]["script"])


def render_step() -> dict[str, Any]:
    """The workflow's step that renders the comment again with goldgate."""
    workflow = yaml.safe_load(WORKFLOW.read_text())
    steps = workflow["jobs"]["comment"]["steps"]
    (render,) = [step for step in steps if "goldgate report fork-comment" in step.get("run", "")]
    return dict(render)


def rebuild(
    artifact: Path,
    rendered: Path,
    *,
    head_sha: str = HEAD_SHA,
    repository: str = "octo/triage",
    extra: str = "",
) -> subprocess.CompletedProcess[str]:
    """Run the render step's ``goldgate report fork-comment`` command line as the workflow
    writes it (its shell script, with this environment's goldgate on PATH; ``extra``
    options appended)."""
    from run.support import GOLDGATE

    script = render_step()["run"].splitlines()
    command = "\n".join(line for line in script if "pip install" not in line) + " " + extra
    env = {
        "PATH": f"{Path(GOLDGATE[0]).parent}:/usr/bin:/bin",
        "COMMENT_DIR": str(artifact),
        "RENDERED": str(rendered),
        "HEAD_SHA": head_sha,
        "REPOSITORY": repository,
        "SERVER_URL": "https://github.com",
    }
    return subprocess.run(
        ["bash", "-e", "-c", command.replace("goldgate report", " ".join(GOLDGATE) + " report")],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def post_rendered(
    tmp_path: Path,
    rendered: str | None,
    *,
    pull: Any,
    comments: Any = (),
    head_sha: str = HEAD_SHA,
    head_repository: str = HEAD_REPOSITORY,
    event_pulls: Any = (),
) -> Any:
    """Run the post script over the rendered comment file (``rendered``: its text), the
    triggering run's head ``head_sha`` of ``head_repository``; GitHub answers ``pull`` for
    the pull request and ``comments`` for its comments; the event lists ``event_pulls``.
    Returns {failed, calls}."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node on this machine: the workflow script cannot run")
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "rendered.json"
    if rendered is not None:
        path.write_text(rendered, "utf-8")
    (tmp_path / "script.js").write_text(workflow_script())
    (tmp_path / "harness.js").write_text(HARNESS)
    env = {
        "PATH": "/usr/bin:/bin",
        "SCRIPT": str(tmp_path / "script.js"),
        "RENDERED": str(path),
        "HEAD_SHA": head_sha,
        "HEAD_REPOSITORY": head_repository,
        "FAKE_PULL": json.dumps(pull),
        "FAKE_COMMENTS": json.dumps(list(comments)),
        "FAKE_PAYLOAD": json.dumps({"workflow_run": {"pull_requests": list(event_pulls)}}),
    }
    done = subprocess.run(
        [node, str(tmp_path / "harness.js")],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)

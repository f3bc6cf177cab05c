"""Running examples/workflows/fork-comment.yml's github-script on Node, GitHub's client
faked: what it was asked to post, or why it refused."""

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
const core = { setFailed: (message) => { failed = message; } };
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
    issues: {
      listComments: "listComments",
      updateComment: async (o) => { calls.push(["update", o.comment_id, o.body]); },
      createComment: async (o) => { calls.push(["create", o.issue_number, o.body]); },
    },
  },
};
const context = { repo: { owner: "octo", repo: "triage" } };
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


def post_comment_files(
    tmp_path: Path,
    files: dict[str, str],
    *,
    pull: Any,
    comments: Any = (),
    head_sha: str = HEAD_SHA,
    head_repository: str = HEAD_REPOSITORY,
) -> Any:
    """Run the script over a downloaded artifact holding ``files``, the triggering run's
    head ``head_sha`` of ``head_repository``; GitHub answers ``pull`` for the pull request
    and ``comments`` for its comments. Returns {failed, calls}."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node on this machine: the workflow script cannot run")
    folder = tmp_path / "comment"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, "utf-8")
    (tmp_path / "script.js").write_text(workflow_script())
    (tmp_path / "harness.js").write_text(HARNESS)
    env = {
        "PATH": "/usr/bin:/bin",
        "SCRIPT": str(tmp_path / "script.js"),
        "COMMENT_DIR": str(folder),
        "HEAD_SHA": head_sha,
        "HEAD_REPOSITORY": head_repository,
        "FAKE_PULL": json.dumps(pull),
        "FAKE_COMMENTS": json.dumps(list(comments)),
    }
    done = subprocess.run(
        [node, str(tmp_path / "harness.js")],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)



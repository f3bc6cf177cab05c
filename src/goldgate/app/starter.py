"""What ``goldgate init`` writes: a starter project as text, file by file.

The files are Python strings here rather than package data: the wheel, the action's
install and the container then cannot miss them, the one substitution (goldgate's version in
the workflows' ``uses:`` comments) is a ``str.replace``, and the tests check what is written
(``goldgate validate``, ``evaluate --check``, a green run, actionlint and zizmor on the
workflows) instead of the templates. ``goldgate.app.init`` writes them.

The starter is one workflow, ``assistant``, whose target is ``goldgate_target:handle``, a
module at the project's root that answers the starter gold; a team replaces it with its own
application in the settings' one ``python:`` line. The workflows follow
``examples/workflows/pull-request.yml`` and ``baseline.yml``: permissions per job, actions
pinned by commit sha, and the goldgate action as ``<owner>/goldgate@<sha>`` with an all-zero
sha, a placeholder that lints clean and fails loudly until it is replaced.
"""

from __future__ import annotations

from goldgate._version import __version__

SETTINGS = """\
# goldgate's settings, written by `goldgate init` (goldgate's docs/settings.md says every key).
# One workflow: the application goldgate calls, how it is reached, and its flows and steps,
# which the gold's paths name (/flows/support/steps/route/result/...).
workflows:
  assistant:
    revision: "1"   # change it whenever the application's behaviour changes
    description: The starter application; point the target at yours.
    target:
      python: goldgate_target:handle   # yours: package.module:function
    flows:
      support:
        steps:
          route: {}
          reply: {}
"""

DATASET = """\
{
  "name": "starter",
  "revision": "1",
  "description": "Written by goldgate init: replace these cases with reviewed gold of yours.",
  "suites": [
    {
      "name": "support",
      "workflow": "assistant",
      "cases": "cases/support.json"
    }
  ]
}
"""

CASES = """\
[
  {
    "id": "refund_en",
    "family": "positive",
    "split": "dev",
    "input": {
      "payload": {"message": "I was charged twice this month, please refund me."},
      "metadata": {"language": "en"}
    },
    "expectations": [
      {"name": "completed", "path": "/execution/status", "expected": "completed"},
      {"name": "queue", "path": "/flows/support/steps/route/result/queue", "expected": "billing"},
      {
        "name": "reply",
        "path": "/flows/support/steps/reply/result/text",
        "expected": {"matches": "^Thanks", "contains": "billing", "maxLines": 1},
        "comparison": "text"
      }
    ]
  },
  {
    "id": "password_en",
    "family": "positive",
    "split": "dev",
    "input": {
      "payload": {"message": "How do I reset my password?"},
      "metadata": {"language": "en"}
    },
    "expectations": [
      {"name": "completed", "path": "/execution/status", "expected": "completed"},
      {"name": "queue", "path": "/flows/support/steps/route/result/queue", "expected": "general"}
    ]
  }
]
"""

TARGET = '''\
"""The application goldgate calls, as `goldgate init` wrote it: a stand-in to replace.

goldgate calls `handle` once per case with the request
{"workflow", "flow", "step", "envelope": {"payload", "metadata"}} (the case's input is the
envelope) and checks the gold in evaluation/ against the result document it returns. Make it
your application in one line: point `python:` in config/settings.yaml at your own function
(package.module:function, from the folder holding config/), or have `handle` call your code
and shape its answer as below. Then delete this file.
"""

from typing import Any


def handle(request: dict[str, Any]) -> dict[str, Any]:
    message = str(request["envelope"]["payload"].get("message", ""))
    billing = any(word in message.lower() for word in ("refund", "charge", "invoice"))
    queue = "billing" if billing else "general"
    reply = f"Thanks for writing: your message is with our {queue} team."
    return {
        "execution": {"status": "completed"},
        "flows": {
            "support": {
                "steps": {
                    "route": {"result": {"queue": queue}},
                    "reply": {"result": {"text": reply}},
                }
            }
        },
    }
'''

_PIN = (
    "<owner>/goldgate@0000000000000000000000000000000000000000 "
    "# vGOLDGATE_VERSION: your goldgate repository and that tag's commit sha"
)

_GOLDGATE_STEPS = f"""\
      - uses: actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97 # v7.0.0
        with:
          python-version: "3.11"
      - name: Install the application's dependencies
        run: if [ -f requirements.txt ]; then python -m pip install -r requirements.txt; fi

      - id: goldgate
        uses: {_PIN}
        with:
          mode: evaluate
          config: config/settings.yaml
"""
"""The steps both workflows share: the job's Python with the application's dependencies,
then goldgate (pinned) evaluating the gold; each workflow adds its own inputs."""

PULL_REQUEST_WORKFLOW = """\
# goldgate on every pull request (written by `goldgate init --github`): run the gold in
# evaluation/ against the application, compare with the report of the merge-base commit
# (uploaded by goldgate-baseline.yml), write JUnit, comment on the pull request and annotate
# the gold. Replace `<owner>/goldgate@000...` with the goldgate repository you use and the
# full commit sha of the release (never a tag: a tag can move).
#
# Pull requests from forks get a read-only token: the comment goes to the job summary
# (examples/workflows/fork-comment.yml in goldgate's repository posts it).
name: goldgate

on:
  pull_request:

permissions: {}

concurrency:
  group: goldgate-${{ github.event.pull_request.number }}
  cancel-in-progress: true   # a newer push cancels this run: goldgate keeps what finished

jobs:
  gold:
    name: Gold
    runs-on: ubuntu-latest
    timeout-minutes: 30
    permissions:
      contents: read         # check out the code
      actions: read          # find and download the baseline artifact
      pull-requests: write   # the sticky comment (read-only for forks, whatever this says)
      checks: write          # the check run "goldgate", with every annotation
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
        with:
          persist-credentials: false

      # goldgate imports the application in the job's Python: install what it needs.
__GOLDGATE_STEPS__          baseline: artifact:goldgate-report   # goldgate-report-<merge-base sha>
          partial: "true"                      # gold edited in this pull request still compares
          junit: goldgate-junit.xml
          comment: update
          fail_on: disagreement
          check_run: "true"

      - name: Keep the report, comparison, JUnit and HTML page
        if: ${{ !cancelled() && steps.goldgate.outputs.report != '' }}
        uses: actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f # v7.0.0
        with:
          name: goldgate-pr-${{ github.event.pull_request.number }}-${{ github.run_attempt }}
          path: |
            ${{ steps.goldgate.outputs.report }}
            ${{ steps.goldgate.outputs.comparison }}
            ${{ steps.goldgate.outputs.junit }}
            ${{ steps.goldgate.outputs.html }}
          if-no-files-found: warn
          include-hidden-files: true   # reports live under .goldgate/
          retention-days: 14
""".replace("__GOLDGATE_STEPS__", _GOLDGATE_STEPS)

BASELINE_WORKFLOW = """\
# goldgate's baseline (written by `goldgate init --github`): on every push to the default
# branch, run the gold and upload the report as the artifact `goldgate-report-<commit sha>`,
# which pull requests (goldgate.yml) compare with. Name your default branch below and replace
# `<owner>/goldgate@000...` as in goldgate.yml.
name: goldgate baseline

on:
  push:
    branches: [main]   # your default branch

permissions: {}

concurrency:
  group: goldgate-baseline-${{ github.sha }}
  cancel-in-progress: false

jobs:
  baseline:
    name: Baseline report
    if: ${{ github.ref_name == github.event.repository.default_branch }}
    runs-on: ubuntu-latest
    timeout-minutes: 30
    permissions:
      contents: read   # check out the code; no comment, no baseline download
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
        with:
          persist-credentials: false

__GOLDGATE_STEPS__          comment: "off"
          fail_on: never   # a failing main is still the baseline pull requests compare with

      - name: Upload the baseline report
        if: ${{ !cancelled() && steps.goldgate.outputs.report != '' }}
        uses: actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f # v7.0.0
        with:
          name: goldgate-report-${{ github.sha }}
          path: ${{ steps.goldgate.outputs.report }}
          if-no-files-found: error
          include-hidden-files: true   # reports live under .goldgate/
          retention-days: 90

      - name: Fail on gold disagreement, after the upload
        if: ${{ steps.goldgate.outputs.exit_code != '0' }}
        env:
          EXIT_CODE: ${{ steps.goldgate.outputs.exit_code }}
        run: |
          echo "goldgate exited ${EXIT_CODE} on the default branch; the report was uploaded."
          exit 1
""".replace("__GOLDGATE_STEPS__", _GOLDGATE_STEPS)


def starter_files(*, github: bool) -> tuple[tuple[str, str], ...]:
    """Each file of the starter as (path relative to the project's root, text), in the order
    they are written; with ``github`` the two workflows too."""
    files = (
        ("config/settings.yaml", SETTINGS),
        ("evaluation/dataset.json", DATASET),
        ("evaluation/cases/support.json", CASES),
        ("goldgate_target.py", TARGET),
    )
    if not github:
        return files
    workflows = (
        (".github/workflows/goldgate.yml", PULL_REQUEST_WORKFLOW),
        (".github/workflows/goldgate-baseline.yml", BASELINE_WORKFLOW),
    )
    return files + tuple(
        (path, text.replace("GOLDGATE_VERSION", __version__)) for path, text in workflows
    )

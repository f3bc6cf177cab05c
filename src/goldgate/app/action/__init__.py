"""``goldgate action``: what the Docker action runs.

It reads its inputs from ``INPUT_*`` variables (names upper-cased, underscores kept) and the
event from ``GITHUB_EVENT_PATH``; it masks every credential a live workflow names before
anything runs, evaluates (gold, or Python evals in mode ``evals``) with an environment that
holds no GitHub or Actions token, finds the baseline (the artifact of the merge-base commit,
or a path), compares, and reports: JUnit XML, the sticky pull-request comment (or a comment
file when GitHub says no, as it does to forks), the job summary, at most 10 annotations per
kind and the step's outputs.

The middle is pure (``read_inputs``, ``decide_exit``, ``target_environ``); GitHub is reached
only at the edges, and every GitHub failure is a ``::warning::`` and a fallback. Its parts,
in the order a run meets them:

- ``inputs``: the ``INPUT_*`` variables and the ``GOLDGATE_*`` knobs, read purely;
- ``step``: one run of the step (``StepRun``), its outputs and job summary;
- ``isolation``: the tokens held apart, secrets masked, user code run without either;
- ``modes``: ``run_action`` and each mode's way to a report;
- ``finish``: from a report on disk to the exit code, through the baseline and publishing;
- ``baseline``: the report file or artifact the report is compared with;
- ``publish``: JUnit, the comment (or its hand-off), the summary, annotations, outputs;
- ``rules``: the pure decisions (``fail_on``, whether a baseline may count).
"""

from __future__ import annotations

from goldgate.app.action.inputs import ActionInputs, read_inputs
from goldgate.app.action.isolation import hold_tokens_apart, target_environ
from goldgate.app.action.modes import run_action
from goldgate.app.action.rules import baseline_refusal, decide_exit, nothing_compared

__all__ = [
    "ActionInputs",
    "baseline_refusal",
    "decide_exit",
    "hold_tokens_apart",
    "nothing_compared",
    "read_inputs",
    "run_action",
    "target_environ",
]

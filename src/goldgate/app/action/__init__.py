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

- ``inputs``: the one table of the inputs (``INPUTS``), the ``INPUT_*`` variables read from
  it into Literals, and the ``GOLDGATE_*`` knobs, read purely;
- ``commands``: the one writer of workflow commands, step outputs and job summary;
- ``step``: one run of the step (``StepRun``), its notes and its writer;
- ``isolation``: the tokens held apart, secrets masked, user code run without either;
- ``modes``: ``run_action`` and each mode's way to a report;
- ``finish``: from a report on disk to the exit code, through the baseline and publishing;
- ``baseline``: the report file or artifact the report is compared with;
- ``publish``: JUnit, the comment (or its hand-off), the summary, annotations, outputs;
- ``checkrun``: the step's check run, created before the run and completed when it
  publishes (never left in progress);
- ``rules``: the pure decisions (``fail_on``, whether a baseline may count).

Nothing is imported here: ``goldgate action`` starts again without the tokens in its
environment (``isolation.hold_tokens_apart``) before it imports the rest, and importing a
module of a package runs its ``__init__`` first.
"""

__all__ = [
    "baseline",
    "checkrun",
    "commands",
    "finish",
    "handoff",
    "inputs",
    "isolation",
    "modes",
    "publish",
    "rules",
    "seal",
    "split",
    "step",
]

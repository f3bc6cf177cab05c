"""A report's adjudication queue, exported for reviewers, and their verdicts recorded.

``goldgate adjudication export REPORT -o FILE.jsonl`` writes one line per check awaiting a
person::

    {"id": "replies/refund_en#1/tone", "suite": "replies", "case": "refund_en", "attempt": 1,
     "check": "tone", "digest": "sha256:…", "gold": "sha256:…", "note": "…", "input": …,
     "output": "…", "verdict": null, "comment": null}

and, where the expectation's judge reviewed the answer without deciding it, ``judge``: what
it suggested (``{"name", "revision", "verdict", "reason"}``, ``verdict`` null when it gave
none); answers a judge suggested failing come first.

The reviewer sets ``verdict`` to ``"pass"`` or ``"fail"`` (and may add a ``comment``);
``goldgate adjudication apply FILE.jsonl`` records every decided line in the project's
verdict store, bound to the answer (``digest``) and to the expectation's gold the reviewer
judged it against (``gold``: its prose, note and assertions), so that changing either sends
the answer back to the queue. A line whose ``output`` no longer hashes to its ``digest`` is
refused: a verdict is about the answer the reviewer read; so is a line without ``gold`` (a
file an older goldgate exported).

The file holds inputs and outputs (private detail): it is created new, never overwriting a
file, with mode 0600, like a report.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldgate.base.errors import InvalidInputError
from goldgate.base.problems import display_path
from goldgate.report.caserecords import CheckView, attempt_views
from goldgate.report.models import SuiteRecord
from goldgate.report.stream import dumps
from goldgate.report.verdictstore import Verdict, read_lines, verdict_from
from goldgate.scoring.adjudication import gold_digest, note_of, output_digest

if TYPE_CHECKING:
    from goldgate.report.streamread import StreamedReport

__all__ = ["Reviewed", "export_lines", "read_reviewed", "write_export"]

EXPORT_KEYS = ("id", "attempt", "note", "input", "output", "judge")
"""What a reviewer's line carries besides the store's keys."""


def _reviewer_input(suite: SuiteRecord, envelope: Any) -> Any:
    """What the reviewer reads as the input: an eval's own input, else the case envelope."""
    if suite.target.kind == "eval" and isinstance(envelope, dict):
        payload = envelope.get("payload")
        if isinstance(payload, dict):
            return payload.get("input")
    return envelope


def _suggestion(check: CheckView) -> dict[str, Any] | None:
    """What the check's judge suggested (its verdict, null for none, and its reason), for
    the reviewer's line; None when no judge reviewed the answer."""
    said = check.judge
    if said is None:
        return None
    return {
        "name": said.name,
        "revision": said.revision,
        "verdict": said.verdict,
        "reason": said.reason,
    }


def export_lines(report: StreamedReport, source: str) -> Iterator[dict[str, Any]]:
    """Every answer awaiting a person, as a reviewer's line: first, in report order, those
    a judge suggested failing, then the rest in report order; an answer that several
    attempts gave (``--repeat``) once, since a verdict is about the answer. The report's
    cases are read a case at a time, twice (a pass for each group): what is held is the
    queue and the answers exported so far (their keys), never the report."""
    for failing in (True, False):
        for line in _export_lines(report, source):
            judge = line.get("judge")
            if (judge is not None and judge["verdict"] == "fail") is failing:
                yield line


def _export_lines(report: StreamedReport, source: str) -> Iterator[dict[str, Any]]:
    """Every answer awaiting a person, in report order, each the first time it is met."""
    exported: set[tuple[str, str, str, str]] = set()
    for index, suite in enumerate(report.report.suites):
        if not suite.adjudication_queue:
            continue
        wanted = {(e.case, e.attempt, e.check): e for e in suite.adjudication_queue}
        attempts = (view for case in report.cases(index) for view in attempt_views(case))
        for attempt in attempts:
            for check in attempt.checks:
                entry = wanted.get((attempt.case_id, attempt.attempt, check.name))
                if entry is None:
                    continue
                if not check.actual_present or not isinstance(check.actual, str):
                    raise InvalidInputError(
                        f"{source}: suite {suite.name!r} case {attempt.case_id!r} has no saved "
                        "answer to review (a report written without details)."
                    )
                if output_digest(check.actual) != entry.digest:
                    raise InvalidInputError(
                        f"{source}: suite {suite.name!r} case {attempt.case_id!r}: the saved "
                        "answer does not match its digest; the report was altered."
                    )
                key = (suite.name, attempt.case_id, check.name, entry.digest)
                if key in exported:
                    continue
                exported.add(key)
                line = {
                    "id": f"{suite.name}/{attempt.case_id}#{attempt.attempt}/{check.name}",
                    "suite": suite.name,
                    "case": attempt.case_id,
                    "attempt": attempt.attempt,
                    "check": check.name,
                    "digest": entry.digest,
                    "gold": gold_digest(check.expected),
                    "note": entry.note if entry.note is not None else note_of(check.expected),
                    "input": _reviewer_input(suite, attempt.input),
                    "output": check.actual,
                    "verdict": None,
                    "comment": None,
                }
                suggestion = _suggestion(check)
                if suggestion is not None:  # beside the verdict the reviewer fills in
                    line = {**line, "judge": suggestion}
                yield line


def write_export(lines: Iterable[dict[str, Any]], path: Path) -> int:
    """Create ``path`` (never overwriting a file, mode 0600) holding ``lines``, written as
    they are made: into a temporary file beside it, linked into place once every line is
    written (a line that cannot be made, a refused report, leaves nothing). How many."""
    display = display_path(path)

    def refused(error: OSError) -> InvalidInputError:
        if isinstance(error, FileExistsError):
            return InvalidInputError(f"{display}: already exists; an export never overwrites.")
        return InvalidInputError(f"{display}: cannot be created ({error.strerror or error}).")

    if path.exists() or path.is_symlink():
        raise refused(FileExistsError())
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=".goldgate-export-", suffix=".tmp"
        )  # mode 0600
    except OSError as error:
        raise refused(error) from None
    try:
        written = 0
        with os.fdopen(descriptor, "wb") as out:
            for line in lines:
                out.write(dumps(line) + b"\n")
                written += 1
        os.link(temporary, path)
    except OSError as error:
        raise refused(error) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    return written


@dataclass(frozen=True)
class Reviewed:
    """A reviewer's file: the verdicts it decides and how many lines still wait."""

    verdicts: tuple[Verdict, ...]
    undecided: int


def read_reviewed(path: Path) -> Reviewed:
    """A reviewer's file checked strictly, each problem with its file and line."""
    verdicts: list[Verdict] = []
    undecided = 0
    seen: dict[tuple[str, str, str, str], tuple[str, Verdict]] = {}
    for where, value in read_lines(path):
        verdict = verdict_from(
            value, where, extra=EXPORT_KEYS, verdict_may_be_null=True, gold_required=True
        )
        output = value.get("output") if isinstance(value, dict) else None
        if output is not None:
            if not isinstance(output, str):
                raise InvalidInputError(f"{where}: 'output' must be the answer's text.")
            if output_digest(output) != value["digest"]:
                raise InvalidInputError(
                    f"{where}: 'digest' is not the digest of 'output'; a verdict is about the "
                    "answer as exported, so export again rather than edit it."
                )
        if verdict is None:
            undecided += 1
            continue
        before = seen.get(verdict.key)
        if before is not None and before[1].passed != verdict.passed:
            raise InvalidInputError(
                f"{where}: contradicts the verdict of {before[0]} on the same answer."
            )
        if before is None:
            seen[verdict.key] = (where, verdict)
            verdicts.append(verdict)
    return Reviewed(tuple(verdicts), undecided)

"""What a python target raised, as the report keeps it: its type and place always (safe:
the comment shows them), its message and frames only with details (private, as a result
document is); read back as an ``ExceptionRecord`` and copied over by a replay."""

from __future__ import annotations

from goldgate.gold.recorded import RecordedCase
from goldgate.report.build import attempt_json
from goldgate.report.caserecords import AttemptRecord, exception_fields
from goldgate.report.models import validated
from goldgate.scoring.attempt import AttemptExtras, AttemptOutcome, Which, attempt_outcome

RAISED = {
    "type": "ValueError",
    "where": {"file": "app/triage.py", "line": 41, "function": "classify"},
    "message": "no queue for 'customer@example.com'",
    "frames": [
        {"file": "app/entry.py", "line": 9, "function": "handle"},
        {"file": "app/triage.py", "line": 41, "function": "classify"},
    ],
}


def _failed() -> AttemptOutcome:
    case = RecordedCase("c", None, None, None, ())  # type: ignore[arg-type]
    return attempt_outcome(
        Which(0, case, 1),
        status="failed",
        reason="python target raised ValueError",
        latency_ms=2.0,
        document=None,
        stderr=None,
        checks=(),
        extras=AttemptExtras(exception=RAISED),
    )


def test_details_keep_the_message_and_frames() -> None:
    stored = attempt_json(_failed(), include_details=True)

    assert stored["exception"] == RAISED
    record = validated(AttemptRecord, stored)
    assert record.exception is not None
    assert record.exception.where is not None
    assert (record.exception.type, record.exception.where.line) == ("ValueError", 41)
    assert exception_fields(record.exception) == RAISED  # what a replay writes again


def test_without_details_only_the_type_and_the_place() -> None:
    stored = attempt_json(_failed(), include_details=False)

    assert stored["exception"] == {"type": "ValueError", "where": RAISED["where"]}
    assert "customer@example.com" not in str(stored)
    record = validated(AttemptRecord, stored)
    assert record.exception is not None
    assert (record.exception.message, record.exception.frames) == (None, ())


def test_an_attempt_without_an_exception_stores_none() -> None:
    stored = {"attempt": 1, "status": "failed", "reason": "exited 2"}

    assert validated(AttemptRecord, stored).exception is None
    assert exception_fields(None) is None

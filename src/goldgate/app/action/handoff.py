"""The run step's hand-off to the publishing step: one frozen record, written and read here.

``goldgate action --run-only`` writes it (``write_handoff``) once user code is gone and
records the digest of its bytes as the step's output ``handoff_digest``; the record holds the
digest of the report's bytes. ``goldgate publish`` reads it back (``read_handoff``) only
when its bytes match the digest it is given, and the report only when its bytes match the
record: a file planted or rewritten after the run step (by a process user code left, say)
is refused, never published.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from goldgate.app.action.step import WORK_FOLDER
from goldgate.app.errors import HandoffError

HANDOFF = WORK_FOLDER / "run.json"
"""Where the run leaves what publishing needs, relative to the workspace."""
FORMAT = "goldgate.action-run/2"
DIGEST_VARIABLE = "GOLDGATE_HANDOFF_DIGEST"
"""The variable the publishing step reads the run step's ``handoff_digest`` output from."""


@dataclass(frozen=True)
class Handoff:
    """What the run left: whether a mode that runs user code ran, which, the report it
    wrote and its digest (none when the run settled on its own, ``settled``), the run's exit
    code, the sentence of the error that ended it, and the digests of the baseline and
    event files as they were before user code ran."""

    ran: bool
    mode: str | None = None
    code: int | None = None
    report: str | None = None
    report_sha256: str | None = None
    failure: str | None = None
    settled: bool = False
    baseline_sha256: str | None = None
    """The digest of the baseline file (input ``baseline``, a path) before user code ran;
    None when there was none there."""
    event_sha256: str | None = None
    """The digest of the event file (``GITHUB_EVENT_PATH``) before user code ran."""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str | None:
    """The digest of the file's bytes; None when it cannot be read."""
    try:
        return digest(path.read_bytes())
    except OSError:
        return None


def write_handoff(path: Path, handoff: Handoff) -> str:
    """Write ``handoff`` to ``path`` (``outputs.write_output_file``); the digest of its bytes.
    Raises ``OutputFileError`` when it cannot be written."""
    from goldgate.base.outputs import write_output_file

    data = (json.dumps({"format": FORMAT, **asdict(handoff)}, ensure_ascii=False) + "\n").encode()
    write_output_file(path, data)
    return digest(data)


def read_handoff(path: Path, expected: str) -> Handoff:
    """The hand-off at ``path``, the file removed (a later step never reads a stale one),
    when its bytes have the digest ``expected`` and its report's bytes the digest it
    records; else a ``HandoffError`` saying why in one sentence."""
    try:
        data = path.read_bytes()
    except OSError:
        raise HandoffError(f"there is no hand-off of a run in {path}") from None
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)
    if not expected:
        raise HandoffError(
            f"{DIGEST_VARIABLE} is not set: give the publishing step the run step's output "
            "handoff_digest, so that a hand-off written after the run step is refused"
        )
    if digest(data) != expected.strip().lower():
        raise HandoffError(
            f"{path} is not the hand-off the run step recorded (its digest differs): it was "
            "changed after user code ran"
        )
    try:
        value = json.loads(data)
        if value.pop("format") != FORMAT:
            raise ValueError
        handoff = Handoff(**value)
    except (ValueError, TypeError, KeyError, AttributeError):
        raise HandoffError(f"{path} is not the hand-off of a run") from None
    if handoff.report is not None and (
        handoff.report_sha256 is None or file_digest(Path(handoff.report)) != handoff.report_sha256
    ):
        raise HandoffError(
            f"the report {handoff.report} is not the one the run step recorded (its digest "
            "differs): it was changed after user code ran"
        )
    return handoff

"""Report files: created exclusively (never overwritten), owner-only, and read back strictly.

A report is written to a temporary file in its folder and hard-linked into place, which fails
when the name exists, so two runs can never clobber each other and a reader never sees half
a file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goldgate.base.channel import announce
from goldgate.base.errors import (
    InvalidInputError,
    ReportRefusedError,
    RuntimeFailureError,
)
from goldgate.base.files import read_regular_file
from goldgate.base.memory import collections_paused
from goldgate.base.outputs import linked_folder
from goldgate.base.pointers import format_pointer
from goldgate.report.jsontext import json_text_value
from goldgate.report.migrate import MIGRATIONS as _MIGRATIONS
from goldgate.report.readbound import (
    HELD_FACTOR,
    READ_FACTOR,
    admit_report,
    memory_bounded,
)
from goldgate.report.records import REPORT_FORMAT_VERSION
from goldgate.report.stream import report_chunks
from goldgate.report.verified import is_verified, note_verified

if TYPE_CHECKING:  # pydantic is imported to read a report: a run writes without it
    from pydantic import ValidationError

    from goldgate.report.records import Report

REPORTS_FOLDER = Path(".goldgate/evaluations")
_FORMAT_PREFIX = "goldgate.report/"


def default_report_path(project: Path, dataset_name: str, now: datetime) -> Path:
    """A unique name under .goldgate/evaluations/ in the project folder (the one holding
    config/), where runs, replays and comparisons look for reports."""
    return unique_path(project / REPORTS_FOLDER, dataset_name, now)


def unique_path(folder: Path, name: str, now: datetime) -> Path:
    """``folder/<UTC stamp>-<name>-<random>.json``: unique without looking at the folder."""
    stamp = now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    safe_name = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40]
    return folder / f"{stamp}-{safe_name}-{secrets.token_hex(3)}.json"


def _make_folders(folder: Path) -> None:
    """Create ``folder`` and every missing parent with mode 0700 (``mkdir(parents=True)``
    would give the parents the default mode, e.g. 0755 for ``.goldgate/``)."""
    missing: list[Path] = []
    while not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another run made it meanwhile
            each.mkdir(mode=0o700)


def ensure_writable(path: Path) -> None:
    """Refuse, before anything runs, a report path that exists or a folder we cannot write.

    Nothing is left behind: preparation can still refuse the run after this (a target that
    does not import, a missing credential), and a refused run must not leave an empty
    ``.goldgate/evaluations/``. So a missing folder is not created here (``write_report``
    does that); the nearest folder that exists is probed instead, with a temporary folder
    made and removed where the report's folders would go."""
    if path.exists() or path.is_symlink():
        raise InvalidInputError(f"{path}: already exists; reports are never overwritten.")
    folder = path.parent
    linked = linked_folder(path)
    if linked is not None:  # planted in a pull request's checkout, perhaps
        raise InvalidInputError(f"{folder}: cannot write a report there ({linked} is a symlink).")
    existing = _nearest_existing(folder)
    try:
        if not existing.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        with _signals_held():  # one between the two calls would leave the probe behind
            os.rmdir(tempfile.mkdtemp(dir=existing, prefix=".goldgate-probe-"))
    except OSError as error:
        raise InvalidInputError(
            f"{folder}: cannot write a report there ({error.strerror or error})."
        ) from None


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait (in this thread, where goldgate handles them) until the block
    is done, and are delivered as soon as it is: a file made and removed, or a whole report
    written and linked into place, is never left half done by a signal."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, (signal.SIGINT, signal.SIGTERM))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _nearest_existing(folder: Path) -> Path:
    """``folder`` or its nearest ancestor that exists (as anything: a file there is refused
    by the caller, since no folder can be made under it)."""
    while not (folder.exists() or folder.is_symlink()) and folder.parent != folder:
        folder = folder.parent
    return folder


class ReportFile:
    """A report streaming into a temporary file in its folder (mode 0600), linked into place
    by ``publish``: a report is never overwritten and never seen half-written.

    Writes are gathered into chunks of about a megabyte. A write that fails (a full disk, a
    file-size limit) does not lose the run: from then on the report is held in memory and
    ``publish`` puts it, with what was already on disk, into a fresh temporary folder."""

    _CHUNK = 1 << 20

    def __init__(self, path: Path) -> None:
        self.path = path
        self._descriptor: int | None = None
        self._temporary: Path | None = None
        self._chunks: list[bytes] = []
        self._pending = 0
        self._written = 0
        self._error: OSError | None = None
        try:
            linked = linked_folder(path)
            if linked is not None:
                raise NotADirectoryError(errno.ENOTDIR, f"{linked} is a symlink")
            _make_folders(path.parent)
            descriptor, temporary = tempfile.mkstemp(
                dir=path.parent, prefix=".goldgate-", suffix=".tmp"
            )
        except OSError as error:  # held in memory; publish falls back
            self._error = error
            return
        os.fchmod(descriptor, 0o600)
        self._descriptor, self._temporary = descriptor, Path(temporary)
        announce("temp", temporary)  # named by a supervisor whose run never finished it

    def write(self, data: bytes) -> None:
        self._chunks.append(data)
        self._pending += len(data)
        if self._pending >= self._CHUNK:
            self._flush()

    def _flush(self) -> None:
        if self._error is not None or not self._chunks or self._descriptor is None:
            return
        view = memoryview(b"".join(self._chunks))
        try:
            while view:
                count = os.write(self._descriptor, view)
                self._written += count
                view = view[count:]
        except OSError as error:
            self._error = error
            self._chunks = [bytes(view)]  # what did not reach the disk stays in memory
            self._pending = len(view)
            return
        self._chunks, self._pending = [], 0

    def _close(self) -> None:
        if self._descriptor is not None:
            with contextlib.suppress(OSError):
                os.close(self._descriptor)
            self._descriptor = None

    def hand_over(self) -> None:
        """Close this process's descriptor: a process forked with it writes the file now
        (``goldgate.report.process``). ``discard`` still removes the temporary file."""
        self._close()

    def publish(self) -> tuple[Path, str | None]:
        """Link the finished report into place; where that fails, write it to a new temporary
        folder instead. Returns where it is and, on fallback, why. ``RuntimeFailureError``
        when it cannot be written anywhere."""
        self._flush()
        try:
            if self._error is None and self._descriptor is not None:
                try:
                    os.fsync(self._descriptor)
                    self._close()
                    assert self._temporary is not None
                    os.link(self._temporary, self.path)
                    return self.path, None
                except FileExistsError:
                    why = (
                        f"{self.path}: appeared while the run went on; the report was not "
                        "overwritten"
                    )
                except OSError as error:
                    why = f"{self.path}: cannot be written ({error.strerror or error})"
            else:
                failure = self._error or OSError("the file was closed")
                why = f"{self.path}: cannot be written ({failure.strerror or failure})"
            return self._fallback(why), why
        finally:
            self.discard()

    def _fallback(self, why: str) -> Path:
        folder = None
        try:
            folder = Path(tempfile.mkdtemp(prefix="goldgate-report-"))
            target = folder / self.path.name
            descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as out:
                if self._temporary is not None and self._written:
                    with open(self._temporary, "rb") as written:
                        out.write(written.read(self._written))
                for chunk in self._chunks:
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            return target
        except OSError as error:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            raise RuntimeFailureError(
                f"{why}, and a temporary folder could not take it either "
                f"({error.strerror or error}); the report is lost."
            ) from None

    def discard(self) -> None:
        """Drop the temporary file (published, or a run that stopped before anything ran)."""
        self._close()
        if self._temporary is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._temporary)


def write_report(report: Report, path: Path) -> Path:
    """Create ``path`` holding ``report`` (mode 0600); ``RuntimeFailureError`` if it exists."""
    return write_report_pieces(report_chunks(report), path)


def write_report_pieces(pieces: Iterable[bytes], path: Path) -> Path:
    """Create ``path`` holding a report's text made as it is written (``pieces``, in order:
    one that raises leaves nothing behind); ``RuntimeFailureError`` if it exists."""
    written, why = write_whole_file(pieces, path)
    if why is not None:
        with contextlib.suppress(OSError):
            written.unlink()
            written.parent.rmdir()
        raise RuntimeFailureError(f"{why}.")
    return written


def write_report_safely(report: Report, path: Path) -> tuple[Path, str | None]:
    """Write a whole report at once (one built in memory, e.g. by replay or merge), as
    ``ReportFile`` does for a streamed one: where ``path`` fails, to a fresh temporary
    folder. It is written a case at a time, never held whole as text."""
    return write_whole_file(report_chunks(report), path)


def write_whole_file(data: bytes | Iterable[bytes], path: Path) -> tuple[Path, str | None]:
    """``data`` (a report or a comparison, or its pieces in order) created at ``path`` as
    ``ReportFile`` creates a report; where it is and, on fallback, why."""
    # Signals are held while the temporary file is made, linked or removed: one in between
    # would leave it behind. While the pieces are made (a merge makes them as it reads its
    # shards, which takes as long as they are large) a signal stops the writing, and the
    # temporary file is removed as the interruption leaves.
    target: ReportFile | None = None
    try:
        with _signals_held():
            target = ReportFile(path)
        for piece in (data,) if isinstance(data, bytes) else data:
            target.write(piece)
    except BaseException:
        if target is not None:
            with _signals_held():
                target.discard()
        raise
    with _signals_held():
        return target.publish()


def report_bytes(report: Report) -> bytes:
    """The file text of a report: compact JSON, ``format`` first."""
    return b"".join(report_chunks(report))


def read_report_bytes(path: Path, held: int = HELD_FACTOR, peak: int = READ_FACTOR) -> bytes:
    """A report file's bytes: only a regular file within the size cap, and one that can be
    read within the memory this process may still take (``readbound.admit_report``: what
    reading it takes at its peak and what is made of it holds once read, as multiples of
    its size), is read."""
    return read_regular_file(
        path,
        str(path),
        what="a report",
        admit=lambda size: admit_report(str(path), size, held, peak),
    )


def read_report(path: Path | str) -> Report:
    """A report file, migrated to the current format and verified; a newer format is
    refused."""
    path = Path(path)
    report, _ = read_report_and_digest(path)
    return report


def read_report_and_digest(path: Path) -> tuple[Report, str]:
    """``read_report`` and the sha256 of the file's bytes, which are let go of as soon as
    they are parsed (a big report: a large share of the memory reading it takes)."""
    from goldgate.report.digests import bytes_digest

    with memory_bounded(str(path)):
        data = read_report_bytes(path)
        digest = bytes_digest(data)
        value = report_value(data, str(path))
        del data
        report = validated_report(value, str(path), verify=not is_verified(digest, path))
        note_verified(digest)
        return report, digest


def report_value(data: bytes, path: str) -> dict[str, Any]:
    """Report file text as plain JSON data migrated to the current format (not validated);
    not JSON, not a report or a newer format is refused."""
    with collections_paused():
        value = json_text_value(data, path)
    if not isinstance(value, dict) or not isinstance(value.get("format"), str):
        raise ReportRefusedError(f"{path}: not a goldgate report (no 'format' field).")
    name = value["format"]
    if not name.startswith(_FORMAT_PREFIX) or not name.removeprefix(_FORMAT_PREFIX).isdigit():
        raise ReportRefusedError(f"{path}: unknown report format {name!r}.")
    version = int(name.removeprefix(_FORMAT_PREFIX))
    if version > REPORT_FORMAT_VERSION:
        raise ReportRefusedError(
            f"{path}: report format {name!r} is newer than this goldgate reads "
            f"({_FORMAT_PREFIX}{REPORT_FORMAT_VERSION}); upgrade goldgate."
        )
    migrated: dict[str, Any] = value
    for migrate in _MIGRATIONS[version - 1 :]:
        migrated = migrate(migrated)
    return migrated


def validation_problem(
    path: str, error: ValidationError, what: str = "report", at: tuple[str | int, ...] = ()
) -> ReportRefusedError:
    """The first problem pydantic found in a ``what`` (a report, a comparison; ``at``: the
    place of the part validated), as one sentence naming where (an RFC 6901 pointer)."""
    from goldgate.report.models import problem_words

    first = error.errors(include_url=False)[0]
    where = format_pointer((*at, *first["loc"]))
    return ReportRefusedError(f"{path}: not a valid {what} at {where}: {problem_words(first)}.")


def parse_report(data: bytes, path: str) -> Report:
    """Report file text, migrated to the current format and verified (``report.verify``: a
    stored figure its attempts and gold do not give is refused); a newer format is refused."""
    with memory_bounded(path):
        return validated_report(report_value(data, path), path)


def validated_report(
    value: dict[str, Any],
    path: str,
    *,
    keep: bool = True,
    verify: bool = True,
    on_case: Callable[[int, int, Any], None] | None = None,
) -> Report:
    """A report's plain JSON (``report_value``, or ``report.scan``'s with its cases read
    again as they are reached) as the report's records, verified (``report.verify``). Equal
    small records (checks, expectations) are one instance. Without ``keep``, each case is
    validated and verified and let go of: every suite's ``cases`` is empty. Without
    ``verify`` (the same bytes verified before in this process, ``report.verified``), the
    cases are only validated where kept, and not read at all where not. ``on_case`` is
    handed each case read (``report.scan.CaseHook``) before it is validated."""
    from pydantic import ValidationError

    from goldgate.report.caseshape import plainly_valid
    from goldgate.report.models import SHARED, CaseRecord, Report, adapter
    from goldgate.report.scan import LazyCases
    from goldgate.report.verify import verify_report

    raw_suites = value.get("suites")
    if not isinstance(raw_suites, list) or not all(type(s) is dict for s in raw_suites):
        raw_suites = None  # validating it whole names the problem
    context: dict[str, Any] = {SHARED: {}}
    read_report_value = adapter(Report).validate_python
    read_case = adapter(CaseRecord).validate_python
    try:
        with collections_paused():
            if raw_suites is None:
                read_report_value(value, context=context)
            header = read_report_value(
                {**value, "suites": [{**suite, "cases": []} for suite in raw_suites or ()]},
                context=context,
            )
    except ValidationError as error:
        raise validation_problem(path, error) from None
    if len(header.suites) != len(raw_suites or ()):  # pragma: no cover - validated above
        raise ReportRefusedError(f"{path}: not a valid report at /suites.")
    cases: list[list[CaseRecord]] = [[] for _ in header.suites]

    def take(suite: int, position: int, case: Any) -> None:
        if on_case is not None:
            on_case(suite, position, case)
        # The cases are validated one by one as they are verified, and each case's plain
        # JSON is let go of then: the report is never held twice in memory.
        try:
            if keep:
                cases[suite].append(read_case(case, context=context))
            elif not plainly_valid(case):  # nothing shared: they would grow with the report
                read_case(case)
        except ValidationError as error:
            raise validation_problem(path, error, at=("suites", suite, "cases", position)) from None

    with collections_paused():
        for index, raw in enumerate(raw_suites or ()):
            if not isinstance(raw.get("cases"), list | LazyCases):
                where = format_pointer(("suites", index, "cases"))
                raise ReportRefusedError(
                    f"{path}: not a valid report at {where}: Input should be a valid array."
                )
        if verify:
            verify_report(value, header, path, take)
        elif keep:
            for index, raw in enumerate(raw_suites or ()):
                for position, case in enumerate(raw["cases"]):
                    take(index, position, case)
        suites = tuple(
            replace(suite, cases=tuple(found))
            for suite, found in zip(header.suites, cases, strict=True)
        )
        return replace(header, suites=suites)

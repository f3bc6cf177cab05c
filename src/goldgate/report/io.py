"""Report files: created exclusively (never overwritten), owner-only, and read back strictly.

A report is written to a temporary file in its folder and hard-linked into place, which fails
when the name exists, so two runs can never clobber each other and a reader never sees half
a file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from goldgate.errors import InvalidInputError, RuntimeFailureError
from goldgate.jsonvalue import load_json_file
from goldgate.report.fallback import write_in_fresh_folder
from goldgate.report.models import REPORT_FORMAT_VERSION, Report

REPORTS_FOLDER = Path(".goldgate/evaluations")
_FORMAT_PREFIX = "goldgate.report/"


def default_report_path(settings_folder: Path, dataset_name: str, now: datetime) -> Path:
    """A unique name under .goldgate/evaluations/ beside the settings file."""
    stamp = now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    safe_name = "".join(c if c.isalnum() or c in "-_" else "_" for c in dataset_name)[:40]
    return settings_folder / REPORTS_FOLDER / f"{stamp}-{safe_name}-{secrets.token_hex(3)}.json"


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
    """Refuse, before anything runs, a report path that exists or a folder we cannot write."""
    if path.exists() or path.is_symlink():
        raise InvalidInputError(f"{path}: already exists; reports are never overwritten.")
    folder = path.parent
    try:
        _make_folders(folder)
        probe = tempfile.NamedTemporaryFile(dir=folder, prefix=".goldgate-probe-", delete=True)  # noqa: SIM115
        probe.close()
    except OSError as error:
        raise InvalidInputError(
            f"{folder}: cannot write a report there ({error.strerror or error})."
        ) from None


def write_report(report: Report, path: Path) -> Path:
    """Create ``path`` holding ``report`` with mode 0600; ``FileExistsError`` is refused."""
    data = (report.model_dump_json(indent=2) + "\n").encode("utf-8")
    folder = path.parent
    _make_folders(folder)
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".goldgate-", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise RuntimeFailureError(
                f"{path}: appeared while the run went on; the report was not overwritten."
            ) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    return path


def write_report_safely(report: Report, path: Path) -> tuple[Path, str | None]:
    """Write to ``path``, or, when that fails, to a fresh temporary folder so that nothing a
    run finished is lost. Returns where it went and, on fallback, why; when the fallback
    fails too, ``RuntimeFailureError`` (report/fallback.py)."""
    try:
        return write_report(report, path), None
    except (OSError, RuntimeFailureError) as error:
        why = (
            str(error)
            if isinstance(error, RuntimeFailureError)
            else (f"{path}: cannot be written ({error.strerror or error})")
        )
        return write_in_fresh_folder(write_report, report, path.name, why), why


def read_report(path: Path) -> Report:
    """A report file, migrated to the current format; a newer format is refused."""
    document = load_json_file(path)
    value = document.value
    if not isinstance(value, dict) or not isinstance(value.get("format"), str):
        raise InvalidInputError(f"{path}: not a goldgate report (no 'format' field).")
    name = value["format"]
    if not name.startswith(_FORMAT_PREFIX) or not name.removeprefix(_FORMAT_PREFIX).isdigit():
        raise InvalidInputError(f"{path}: unknown report format {name!r}.")
    version = int(name.removeprefix(_FORMAT_PREFIX))
    if version > REPORT_FORMAT_VERSION:
        raise InvalidInputError(
            f"{path}: report format {name!r} is newer than this goldgate reads "
            f"({_FORMAT_PREFIX}{REPORT_FORMAT_VERSION}); upgrade goldgate."
        )
    # Version 1 is the first format: there is nothing older to migrate yet. A migration
    # for version N goes here as a function from N to N + 1 applied in order.
    try:
        return Report.model_validate(value)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = "/" + "/".join(str(part) for part in first["loc"])
        raise InvalidInputError(f"{path}: not a valid report at {where}: {first['msg']}.") from None

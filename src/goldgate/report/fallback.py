"""The last place a finished run's report can go: a fresh temporary folder.

When that fails too (no usable temporary folder, a full disk, a file size limit), the run
ends with one sentence and exit 4, and the folder made for the report is removed again:
a failed run leaves nothing behind but its message.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from goldgate.errors import RuntimeFailureError
from goldgate.report.models import Report


def _reason(error: OSError | RuntimeFailureError) -> str:
    if isinstance(error, RuntimeFailureError):
        return str(error).rstrip(".")
    return error.strerror or type(error).__name__


def write_in_fresh_folder(
    write: Callable[[Report, Path], Path], report: Report, name: str, why: str
) -> Path:
    """``write(report, <new temporary folder>/name)``; ``why`` says why the report is not
    where it was asked for. ``RuntimeFailureError`` when this fails as well."""
    folder: Path | None = None
    try:
        folder = Path(tempfile.mkdtemp(prefix="goldgate-report-"))
        return write(report, folder / name)
    except (OSError, RuntimeFailureError) as error:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeFailureError(
            f"{why.rstrip('.')}, and a temporary folder could not take it either "
            f"({_reason(error)}); the report is lost."
        ) from None

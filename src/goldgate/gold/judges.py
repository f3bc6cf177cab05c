"""Judges' calibration records: ``evaluation/judges/NAME.json`` beside the gold, committed
and reviewed like it (docs/judges.md).

A record says how far one revision of a judge agreed with the team's recorded verdicts:
``{"judge", "revision", "verdicts", "agreement", "kappa", "kappa_ci95": [low, high],
"table": {"pass_pass", "pass_fail", "fail_pass", "fail_fail"}, "no_verdict", "requests",
"cached", "cost"}`` (the table counts the human verdict first, the judge's second). Reading
is strict (a record that is not one is refused naming the file and the place); writing
replaces the file atomically.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from goldgate.base.errors import InvalidInputError
from goldgate.base.files import replace_committed_file
from goldgate.base.problems import display_path
from goldgate.base.strictjson import load_json_file
from goldgate.base.textsafe import escape_control

__all__ = [
    "RECORDS_FOLDER",
    "CalibrationRecord",
    "CalibrationTable",
    "read_record",
    "record_json",
    "record_path",
    "write_record",
]

RECORDS_FOLDER: Final = Path("evaluation") / "judges"
"""Where a project's calibration records live, relative to the project folder."""


@dataclass(frozen=True)
class CalibrationTable:
    """Answers counted by the human verdict first and the judge's second."""

    pass_pass: int = 0
    pass_fail: int = 0
    fail_pass: int = 0
    fail_fail: int = 0

    @property
    def total(self) -> int:
        return self.pass_pass + self.pass_fail + self.fail_pass + self.fail_fail


@dataclass(frozen=True)
class CalibrationRecord:
    """One judge revision's agreement with the team's recorded verdicts."""

    judge: str
    revision: str
    verdicts: int
    """Answers a person decided and the judge gave a verdict on: the figures' n."""
    agreement: float | None
    kappa: float | None
    """Cohen's kappa; None where it is undefined (no verdicts, or chance agreement 1)."""
    kappa_ci95: tuple[float, float] | None
    table: CalibrationTable
    no_verdict: int = 0
    """Answers the judge gave no verdict on: counted apart, left out of the figures."""
    requests: int = 0
    cached: int = 0
    cost: float | None = None


def record_path(project: Path, judge: str) -> Path:
    """Where the project's calibration record of ``judge`` lives."""
    return project / RECORDS_FOLDER / f"{judge}.json"


def record_json(record: CalibrationRecord) -> dict[str, Any]:
    """The record as its file and ``--format json`` hold it."""
    table = record.table
    return {
        "judge": record.judge,
        "revision": record.revision,
        "verdicts": record.verdicts,
        "agreement": record.agreement,
        "kappa": record.kappa,
        "kappa_ci95": None if record.kappa_ci95 is None else list(record.kappa_ci95),
        "table": {
            "pass_pass": table.pass_pass,
            "pass_fail": table.pass_fail,
            "fail_pass": table.fail_pass,
            "fail_fail": table.fail_fail,
        },
        "no_verdict": record.no_verdict,
        "requests": record.requests,
        "cached": record.cached,
        "cost": record.cost,
    }


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _field(document: dict[str, Any], check: Any, *, key: str, where: str, what: str) -> Any:
    value = document.get(key)
    if not check(value):
        raise InvalidInputError(f"{where}: '{key}' must be {what}.")
    return value


def read_record(path: Path) -> CalibrationRecord | None:
    """The calibration record at ``path``; None when there is none. A file that is not one
    is ``InvalidInputError`` naming it and the field."""
    if not path.exists() and not path.is_symlink():
        return None
    where = escape_control(display_path(path))
    document = load_json_file(path, display=display_path(path)).value
    if not isinstance(document, dict):
        raise InvalidInputError(f"{where}: a calibration record is a JSON object.")
    text = lambda v: isinstance(v, str)  # noqa: E731
    name = _field(document, text, key="judge", where=where, what="a string")
    revision = _field(document, text, key="revision", where=where, what="a string")
    verdicts = _field(document, _count, key="verdicts", where=where, what="a count")
    maybe = lambda v: v is None or _number(v)  # noqa: E731
    agreement = _field(document, maybe, key="agreement", where=where, what="a number or null")
    kappa = _field(document, maybe, key="kappa", where=where, what="a number or null")
    interval = document.get("kappa_ci95")
    if interval is not None and not (
        isinstance(interval, list) and len(interval) == 2 and all(map(_number, interval))
    ):
        raise InvalidInputError(f"{where}: 'kappa_ci95' must be [low, high] or null.")
    is_object = lambda v: isinstance(v, dict)  # noqa: E731
    raw_table = _field(document, is_object, key="table", where=where, what="an object")
    cells = {}
    for key in ("pass_pass", "pass_fail", "fail_pass", "fail_fail"):
        cells[key] = _field(raw_table, _count, key=key, where=f"{where}: table", what="a count")
    return CalibrationRecord(
        judge=name,
        revision=revision,
        verdicts=verdicts,
        agreement=agreement,
        kappa=kappa,
        kappa_ci95=None if interval is None else (float(interval[0]), float(interval[1])),
        table=CalibrationTable(**cells),
        no_verdict=int(document.get("no_verdict") or 0),
        requests=int(document.get("requests") or 0),
        cached=int(document.get("cached") or 0),
        cost=document.get("cost") if _number(document.get("cost")) else None,
    )


def write_record(path: Path, record: CalibrationRecord) -> None:
    """Replace the record's file atomically (a temporary file in its folder, renamed)."""
    text = orjson.dumps(record_json(record), option=orjson.OPT_INDENT_2) + b"\n"
    replace_committed_file(path, text, "calibration record")

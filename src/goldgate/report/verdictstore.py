"""The project's verdict store: ``evaluation/verdicts.jsonl``, reviewed in pull requests like
gold.

One line per verdict, a JSON object with fixed keys::

    {"suite": "replies", "case": "refund_en", "check": "tone",
     "digest": "sha256:<64 hex>", "gold": "sha256:<64 hex>", "verdict": "pass",
     "comment": "warm enough"}

``digest`` is the answer's, ``gold`` the expectation's gold the reviewer judged against (its
prose, note and assertions: ``scoring.adjudication.gold_digest``): a verdict decides a check
only while both are unchanged. ``comment`` is optional, and so is ``gold`` for lines recorded
before verdicts were bound to gold: such a line is read, but decides nothing (its answer goes
back to the queue until it is reviewed again). The store is read strictly, because a verdict
decides checks: bad JSON, an unknown or missing key, a digest that is not a sha256, a
verdict other than ``pass`` or ``fail`` and a second verdict for the same answer are each
refused with the file and line (exit 2). Blank lines carry nothing and are skipped. It is
written sorted (suite, case, check, digest), one verdict per line, and replaced atomically,
so that a pull request shows exactly the verdicts it adds or changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

from goldgate.base.errors import InvalidInputError, JsonSyntaxError
from goldgate.base.files import replace_committed_file
from goldgate.base.problems import display_path
from goldgate.base.strictjson import decode_utf8, parse_json_text
from goldgate.gold.suites import RecordedVerdict
from goldgate.scoring.adjudication import VerdictKey, is_digest

if TYPE_CHECKING:
    from goldgate.gold.suites import GoldSuite

__all__ = [
    "STORE_PATH",
    "Merged",
    "Verdict",
    "VerdictStore",
    "attach_verdicts",
    "find_project",
    "load_store",
    "merge",
    "project_folder",
    "read_lines",
    "store_path",
    "verdict_from",
    "verdicts_by_suite",
    "write_store",
]

STORE_PATH: Final = Path("evaluation") / "verdicts.jsonl"
_REQUIRED = ("suite", "case", "check", "digest", "verdict")
_OPTIONAL = ("gold", "comment")
_VERDICTS = {"pass": True, "fail": False}


@dataclass(frozen=True, slots=True)
class Verdict:
    """A person's verdict on one answer of one check."""

    suite: str
    case: str
    check: str
    digest: str
    passed: bool
    comment: str | None = None
    gold: str | None = None
    """The digest of the gold judged against; None: an unbound verdict (decides nothing)."""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.suite, self.case, self.check, self.digest)

    def as_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {
            "suite": self.suite,
            "case": self.case,
            "check": self.check,
            "digest": self.digest,
        }
        if self.gold is not None:
            line["gold"] = self.gold
        line["verdict"] = "pass" if self.passed else "fail"
        if self.comment is not None:
            line["comment"] = self.comment
        return line


@dataclass(frozen=True)
class VerdictStore:
    """The verdicts of one project, in store order."""

    path: Path
    verdicts: tuple[Verdict, ...] = ()

    def text(self) -> bytes:
        ordered = sorted(self.verdicts, key=lambda v: v.key)
        return b"".join(orjson.dumps(v.as_json()) + b"\n" for v in ordered)


def store_path(project: Path) -> Path:
    """Where a project's verdict store lives."""
    return project / STORE_PATH


def find_project(start: Path) -> Path:
    """The project folder a path belongs to (see ``project_folder``); ``start`` itself (a
    file's folder) when there is none."""
    found = project_folder(start)
    if found is not None:
        return found
    start = start.resolve()
    return start if start.is_dir() else start.parent


def project_folder(start: Path) -> Path | None:
    """The nearest folder, from ``start`` (a file's folder) upwards, that holds
    ``config/settings.yaml`` or ``evaluation/``, or None; the search stops at a
    repository's root (a folder holding ``.git``)."""
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if (candidate / "config" / "settings.yaml").is_file() or (
            candidate / "evaluation"
        ).is_dir():
            return candidate
        if (candidate / ".git").exists():
            break
    return None


def _name(value: Any) -> bool:
    return (
        isinstance(value, str)
        and bool(value)
        and not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in value)
    )


def verdict_from(
    value: Any,
    where: str,
    *,
    extra: Iterable[str] = (),
    verdict_may_be_null: bool = False,
    gold_required: bool = False,
) -> Verdict | None:
    """A verdict line checked strictly: ``where`` (``file:line``) starts every error.
    ``extra`` keys are allowed besides the store's (a reviewer's file also carries what the
    reviewer read); ``None`` for a line whose verdict is still ``null`` when that is allowed;
    ``gold_required``: a line without ``gold`` is refused (a reviewer's file)."""
    if not isinstance(value, dict):
        raise InvalidInputError(f"{where}: a verdict line is a JSON object.")
    known = (*_REQUIRED, *_OPTIONAL, *extra)
    for key in value:
        if key not in known:
            raise InvalidInputError(
                f"{where}: unknown key {key!r}; a verdict line has "
                f"{', '.join(_REQUIRED)} and optionally {', '.join((*_OPTIONAL, *extra))}."
            )
    for key in _REQUIRED:
        if key not in value:
            raise InvalidInputError(f"{where}: the verdict line has no {key!r}.")
    for key in ("suite", "case", "check"):
        if not _name(value[key]):
            raise InvalidInputError(
                f"{where}: {key!r} must be a nonempty string without control characters."
            )
    if not is_digest(value["digest"]):
        raise InvalidInputError(
            f"{where}: 'digest' is not a sha256 ('sha256:' and 64 lowercase hex digits)."
        )
    gold = value.get("gold")
    if gold is None and gold_required:
        raise InvalidInputError(
            f"{where}: the line has no 'gold' (the digest of the gold the answer was judged "
            "against): it was exported by an older goldgate; export the queue again."
        )
    if gold is not None and not is_digest(gold):
        raise InvalidInputError(
            f"{where}: 'gold' is not a sha256 ('sha256:' and 64 lowercase hex digits)."
        )
    comment = value.get("comment")
    if comment is not None and not isinstance(comment, str):
        raise InvalidInputError(f"{where}: 'comment' must be a string or null.")
    verdict = value["verdict"]
    if verdict is None and verdict_may_be_null:
        return None
    if verdict not in _VERDICTS:
        allowed = '"pass", "fail" or null' if verdict_may_be_null else '"pass" or "fail"'
        raise InvalidInputError(f"{where}: 'verdict' must be {allowed}.")
    return Verdict(
        value["suite"],
        value["case"],
        value["check"],
        value["digest"],
        _VERDICTS[verdict],
        comment,
        gold,
    )


def read_lines(path: Path) -> Iterator[tuple[str, Any]]:
    """Each nonblank line of a JSON Lines file, strictly parsed, with its ``file:line``.
    ``InvalidInputError`` for a file that cannot be read or a line that is not strict JSON."""
    display = display_path(path)
    if not path.is_file():
        raise InvalidInputError(f"{display}: not a file (missing or not a regular file).")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InvalidInputError(f"{display}: cannot be read ({error.strerror or error}).") from None
    text = decode_utf8(display, data)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{display}:{number}"
        try:
            value = parse_json_text(where, line).value
        except JsonSyntaxError as error:
            raise InvalidInputError(
                f"{display}:{number}:{error.column}: {error.message}."
            ) from None
        yield where, value


def load_store(path: Path) -> VerdictStore:
    """The store at ``path`` (empty when there is no file yet), every line checked."""
    if not path.exists() and not path.is_symlink():
        return VerdictStore(path)
    verdicts: list[Verdict] = []
    seen: dict[tuple[str, str, str, str], str] = {}
    for where, value in read_lines(path):
        verdict = verdict_from(value, where)
        assert verdict is not None
        if verdict.key in seen:
            raise InvalidInputError(
                f"{where}: a second verdict for the answer of {seen[verdict.key]}; keep one."
            )
        seen[verdict.key] = where
        verdicts.append(verdict)
    return VerdictStore(path, tuple(verdicts))


@dataclass(frozen=True)
class Merged:
    store: VerdictStore
    added: int
    changed: int
    unchanged: int


def merge(store: VerdictStore, verdicts: Iterable[Verdict]) -> Merged:
    """``store`` with ``verdicts`` recorded: a new answer's verdict is added, a verdict for an
    answer the store already decides replaces it (a reviewer may change their mind, and a
    verdict on changed gold, or one bound to no gold, is judged again)."""
    by_key: dict[tuple[str, str, str, str], Verdict] = {v.key: v for v in store.verdicts}
    added = changed = unchanged = 0
    for verdict in verdicts:
        before = by_key.get(verdict.key)
        if before is None:
            added += 1
        elif before == verdict:
            unchanged += 1
        else:
            changed += 1
        by_key[verdict.key] = verdict
    return Merged(VerdictStore(store.path, tuple(by_key.values())), added, changed, unchanged)


def write_store(store: VerdictStore) -> None:
    """Replace the store's file atomically (a temporary file in its folder, renamed)."""
    replace_committed_file(store.path, store.text(), "verdict store")


def attach_verdicts(suites: Sequence[GoldSuite], project: Path) -> list[GoldSuite]:
    """Each suite with the verdicts the project's store records for its answers: what
    ``goldgate evaluate`` and a replay of JSON gold score with. A store that is not strictly
    valid is ``InvalidInputError`` here, before anything runs."""
    recorded = verdicts_by_suite(load_store(store_path(project)))
    return [
        dataclasses.replace(suite, verdicts=recorded[suite.name])
        if suite.name in recorded
        else suite
        for suite in suites
    ]


def verdicts_by_suite(store: VerdictStore) -> Mapping[str, dict[VerdictKey, RecordedVerdict]]:
    """Every suite's verdicts at once."""
    suites: dict[str, dict[VerdictKey, RecordedVerdict]] = {}
    for verdict in store.verdicts:
        suites.setdefault(verdict.suite, {})[(verdict.case, verdict.check, verdict.digest)] = (
            RecordedVerdict(verdict.passed, verdict.gold)
        )
    return suites

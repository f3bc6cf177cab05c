"""Whether a case id may repeat in each suite of a report, noted by the scan that reads it
(``report.scan.CaseHook``) for the comparison's walk (``comparison.walk``). Its own light
module: the publishing step scans its reports, and hands them to the helpers that verify
them, before it imports the comparison (some 0.15 s of imports it need not wait for)."""

from __future__ import annotations

from array import array
from typing import Any


class IdHook:
    """Whether an id may repeat in each suite of a report, from its scan (``report.scan.
    CaseHook``): the hash of each case's id is kept (8 bytes a case) until the scan ends,
    then only a flag a suite. A case without a string id is noted as a suite whose ids may
    repeat (the comparison refuses it, with its place, when it reads it)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._hashes: list[array[int]] = []
        self._odd: set[int] = set()
        self._counts: list[int] = []
        self._repeats: list[bool] | None = None

    def __call__(self, suite: int, position: int, raw: Any) -> None:
        while len(self._hashes) <= suite:
            self._hashes.append(array("q"))
        case_id = raw.get("id") if type(raw) is dict else None
        if type(case_id) is str:
            self._hashes[suite].append(hash(case_id))
        else:
            self._hashes[suite].append(0)
            self._odd.add(suite)

    def count(self, suite: int) -> int:
        """How many cases of suite ``suite`` the scan met."""
        if self._repeats is not None:
            return self._counts[suite] if suite < len(self._counts) else 0
        return len(self._hashes[suite]) if suite < len(self._hashes) else 0

    def repeats(self, suite: int) -> bool:
        """Whether an id may repeat in suite ``suite`` (equal hashes: maybe equal ids)."""
        if self._repeats is None:
            self._counts = [len(each) for each in self._hashes]
            self._repeats = [
                index in self._odd or _repeated(each) for index, each in enumerate(self._hashes)
            ]
            self._hashes = []
        return self._repeats[suite] if suite < len(self._repeats) else False


def _repeated(hashes: array[int]) -> bool:
    """Whether a hash repeats in ``hashes``: looked for a share of them at a time (those of
    the same remainder), so that the set made holds at most about 65,536 of them."""
    shares = max(1, len(hashes) >> 16)
    for share in range(shares):
        part = hashes if shares == 1 else [each for each in hashes if each % shares == share]
        if len(set(part)) != len(part):
            return True
    return False

"""A JUnit testcase's parts (``render.junit``): data as junit-xml takes it, a testcase's
time as junit-xml always writes it, and a passing attempt's testcase written directly, byte
for byte what junit-xml and ElementTree would write for it (``passed_xml``), from its record
or from a case every attempt of which passed (``report.passing``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from junit_xml import TestCase  # type: ignore[import-untyped]

from goldgate.render import text
from goldgate.render.view import SuiteView
from goldgate.report.passing import PassingCase

__all__ = ["Passed", "new_testcase", "passed_xml", "passing_testcases", "xml_text"]

# XML 1.0 allows tab, newline, carriage return, U+0020-U+D7FF, U+E000-U+FFFD and the
# astral planes; junit-xml strips the rest only from what it writes as raw UTF-8, so a lone
# surrogate would reach the encoder first. Everything is cleaned before it is handed over.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_PLAIN = re.compile(r"[!-~](?:[ -~]*[!-~])?")


def xml_text(value: object, limit: int = text.REASON_LIMIT) -> str:
    """Data as junit-xml receives it: one line (so no line of the file starts with data),
    bounded, and only characters XML can hold."""
    if isinstance(value, str) and len(value) <= limit and _PLAIN.fullmatch(value):
        return value  # the common case, printable ASCII, costs one match per testcase
    return _NOT_XML.sub("", text.one_line(value, limit))


class _Seconds(float):
    """A testcase's time that junit-xml always writes: it leaves out a time that is false,
    and every testcase must have one (0 where nothing was measured)."""

    def __bool__(self) -> bool:
        return True


def new_testcase(name: str, classname: str, latency_ms: float | None) -> TestCase:
    seconds = text.seconds(latency_ms)
    return TestCase(name=name, classname=classname, elapsed_sec=_Seconds(seconds or 0.0))


@dataclass(frozen=True, slots=True)
class Passed:
    """A passing attempt's testcase, not yet a junit-xml ``TestCase``: ``passed_xml``
    writes most of them directly."""

    label: str
    classname: str
    latency_ms: float | None

    def testcase(self) -> TestCase:
        return new_testcase(self.label, self.classname, self.latency_ms)


def passing_testcases(suite: SuiteView, case: PassingCase) -> Iterator[Passed]:
    """``render.junit``'s testcases of a case every attempt of which passed
    (``report.passing``)."""
    record = suite.record
    classname = xml_text(record.name, text.NAME_LIMIT)
    name = xml_text(case.id, text.NAME_LIMIT)
    repeated = record.repeat > 1
    for attempt, latency_ms, _ in case.attempts:
        yield Passed(f"{name}#{attempt}" if repeated else name, classname, latency_ms)


_ATTRIBUTE_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})
"""What ElementTree escapes in an attribute of printable ASCII."""


def _printable_ascii(value: str) -> bool:
    return value.isascii() and value.isprintable()


def passed_xml(passed: Passed) -> tuple[str, float] | None:
    """A passing testcase's element and time, byte for byte what ``render.junit`` writes for
    it, without junit-xml or ElementTree; ``None`` (the long way) unless its name and
    (nonempty) classname are printable ASCII and ``%f`` writes its time as a plain decimal
    ending in three zeros (which tidying drops)."""
    seconds = text.seconds(passed.latency_ms) or 0.0
    written = f"{seconds:f}"  # what junit-xml's "%f" writes
    if not (
        written[0].isdigit()
        and written.endswith("000")
        and _printable_ascii(passed.label)
        and passed.classname  # junit-xml leaves out an empty one
        and _printable_ascii(passed.classname)
    ):
        return None
    label = passed.label.translate(_ATTRIBUTE_ESCAPES)
    classname = passed.classname.translate(_ATTRIBUTE_ESCAPES)
    return f'<testcase name="{label}" time="{written[:-3]}" classname="{classname}" />', seconds

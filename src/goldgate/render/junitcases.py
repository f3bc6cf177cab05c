"""A JUnit testcase's parts (``render.junit``): data as junit-xml takes it, a testcase's
time as junit-xml always writes it, and a passing attempt's testcase written directly, byte
for byte what junit-xml and ElementTree would write for it (``passed_xml``), from its record
or from a case every attempt of which passed (``report.passing``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from junit_xml import TestCase  # type: ignore[import-untyped]

from goldgate.render import text
from goldgate.render.view import SuiteView
from goldgate.report.passing import PassingCase

__all__ = [
    "Passed",
    "clean_illegal",
    "new_testcase",
    "passed_xml",
    "passing_testcases",
    "problem_xml",
    "xml_text",
]

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


_ATTRIBUTE_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\r": "&#13;",
        "\n": "&#10;",
        "\t": "&#09;",
    }
)
"""What ElementTree escapes in an attribute."""


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


# junit-xml's table of what XML must not hold (its ``_clean_illegal_xml_chars`` compiles it on
# every call): compiled once, here. tests/render/test_fastpaths.py holds the two alike.
_ILLEGAL_RANGES = (
    (0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x84), (0x86, 0x9F), (0xD800, 0xDFFF),
    (0xFDD0, 0xFDDF), (0xFFFE, 0xFFFF),
    *((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0x10000, 0x110000, 0x10000)),
)  # fmt: skip
_ILLEGAL = re.compile(
    "[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in _ILLEGAL_RANGES) + "]"
)


def clean_illegal(xml: str) -> str:
    """``xml`` without the characters junit-xml takes out of what it writes."""
    return _ILLEGAL.sub("", xml)


_CDATA_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
"""What ElementTree escapes in an element's text."""
_KINDS = (("failure", "failures"), ("error", "errors"), ("skipped", "skipped"))
"""Each kind of entry junit-xml writes as an element, and the testcase's list of them."""
_OTHER_FIELDS = ("assertions", "timestamp", "status", "category", "file", "line", "log", "url")


def problem_xml(case: TestCase) -> str | None:
    """A testcase with at most one failure, error or skip, as ``render.junit`` writes it
    (junit-xml's element through ElementTree, then tidied: characters XML must not hold taken
    out, three decimals of time, one element a line), without either; None (the long way) for
    anything else: several of them, output or another attribute of the testcase, a time
    ``%f`` does not write as a plain decimal ending in three zeros."""
    if not case.elapsed_sec:  # junit-xml writes no time then
        return None
    written = f"{float(case.elapsed_sec):f}"  # what junit-xml's "%f" writes
    if not (written[0].isdigit() and written.endswith("000")):
        return None
    if case.stdout or case.stderr or any(getattr(case, name) for name in _OTHER_FIELDS):
        return None
    entries = [(kind, entry) for kind, listed in _KINDS for entry in getattr(case, listed)]
    if len(entries) > 1:
        return None
    head = f'<testcase name="{_attribute(case.name)}" time="{written[:-3]}"'
    if case.classname:
        head += f' classname="{_attribute(case.classname)}"'
    child = "" if not entries else _child(*entries[0])
    xml = f"{head} />" if not child else f"{head}>{child}</testcase>"
    return clean_illegal(xml).replace("><", ">\n<")


def _child(kind: str, entry: dict[str, Any]) -> str:
    """The element junit-xml makes of one failure, error or skip (none for a failure or an
    error with neither message nor output)."""
    message, output = entry["message"], entry["output"]
    if kind != "skipped" and not (message or output):
        return ""
    shown = entry.get("type") if kind != "skipped" else None
    element = f'<{kind} type="{_attribute(shown or kind)}"'
    if message:
        element += f' message="{_attribute(message)}"'
    if not output:
        return element + " />"
    return f"{element}>{str(output).translate(_CDATA_ESCAPES)}</{kind}>"


def _attribute(value: object) -> str:
    return str(value).translate(_ATTRIBUTE_ESCAPES)

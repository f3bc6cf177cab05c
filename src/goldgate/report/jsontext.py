"""Report and comparison file text read as JSON strictly: a repeated key, or text that is
not JSON, refused at its line and column (``report.io`` reads reports through it)."""

from __future__ import annotations

import json
from typing import Any

from goldgate.base.errors import JsonSyntaxError, ReportRefusedError
from goldgate.base.jsonvalue import loads_exact
from goldgate.base.strictjson import decode_utf8, parse_json_text, written_colons
from goldgate.report.readbound import admit_dense, lean_parse

__all__ = ["json_text_value"]


def json_text_value(data: bytes, path: str, what: str = "report") -> Any:
    """The JSON value of a ``what``'s file text (a report, a comparison), read fast; where it
    is not JSON, ``InvalidInputError`` at the line and column."""
    weight = admit_dense(path, data)  # a report dense in small values weighs more
    try:
        value = loads_exact(data, lean=lean_parse(weight))
    except ValueError as error:  # orjson's, json's, UTF-8's, an integer past the digit limit
        raise _not_json(data, path, error, what) from None
    if not _keys_surely_unique(data, value):
        _refuse_repeated_key(data, path, what)
    return value


def _keys_surely_unique(data: bytes, value: Any) -> bool:
    """Whether no object of ``value`` (parsed from ``data`` by a parser that keeps the last
    of repeated keys) repeated a key: the colons of the text and of ``value`` written again
    are as many unless a member was dropped (``jsonvalue.keys_surely_unique``, on bytes: a
    colon is one byte in UTF-8, never part of another character). False when it cannot tell
    (an escaped colon, an integer orjson cannot write)."""
    if type(value) is not dict and type(value) is not list:
        return True
    if b"\\u003" in data:
        return False
    try:
        return _written_colons(value) == data.count(b":")
    except TypeError:
        return False


def _written_colons(value: Any) -> int:
    """The colons of ``value`` written as compact JSON (``strictjson.written_colons``),
    written a case at a time: never a second copy of a big report at once."""
    if type(value) is not dict or type(value.get("suites")) is not list:
        return written_colons(value)
    total = written_colons({**value, "suites": []})
    for suite in value["suites"]:
        cases = suite.get("cases") if type(suite) is dict else None
        if type(cases) is not list:
            total += written_colons(suite)
            continue
        total += written_colons({**suite, "cases": []})
        total += sum(written_colons(case) for case in cases)
    return total


def _refuse_repeated_key(data: bytes, path: str, what: str) -> None:
    """Refuse text that repeats a key in one object, at its line and column: two readers
    may take different members, so the file says two things. The key is not quoted (it may
    be a result's, and private)."""
    try:
        parse_json_text(path, decode_utf8(path, data))
    except JsonSyntaxError as error:
        if error.message.startswith("duplicate key"):
            raise ReportRefusedError(
                f"{path}:{error.line}:{error.column}: not a JSON {what} (a key is repeated "
                "in one object)."
            ) from None
        raise ReportRefusedError(
            f"{path}:{error.line}:{error.column}: not a JSON {what} ({error.message})."
        ) from None


def _not_json(data: bytes, path: str, refused: ValueError, what: str) -> ReportRefusedError:
    """Why the text of a ``what`` (a report, a comparison) that the fast parser ``refused`` is
    not JSON, at its line and column: the strict parser, whose words are plainer, reads it
    again. A repeated key, which it refuses first and the fast parser takes, is not why (and
    its key may come from a result): then the fast parser's own place and words are given."""
    try:
        parse_json_text(path, decode_utf8(path, data))
    except JsonSyntaxError as error:
        if not error.message.startswith("duplicate key"):
            return ReportRefusedError(
                f"{path}:{error.line}:{error.column}: not a JSON {what} ({error.message})."
            )
    if isinstance(refused, json.JSONDecodeError):
        return ReportRefusedError(
            f"{path}:{refused.lineno}:{refused.colno}: not a JSON {what} ({refused.msg})."
        )
    return ReportRefusedError(f"{path}: not a JSON {what}.")  # pragma: no cover - stricter

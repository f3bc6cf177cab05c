"""Turning what a target produced into a result document, with safe reasons on failure."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import orjson

from goldgate.base._scanner import MAX_DEPTH
from goldgate.base.errors import JsonSyntaxError
from goldgate.base.holdable import unholdable
from goldgate.base.jsonvalue import json_type_name
from goldgate.base.strictjson import decode_utf8, parse_json_text
from goldgate.run.errors import TargetFailure
from goldgate.run.targets.base import JsonObject


def encode_request(request: JsonObject) -> bytes:
    """The request as UTF-8 JSON text."""
    try:
        return json.dumps(request, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError) as error:
        reason = f"the request could not be encoded as JSON ({type(error).__name__})"
    raise TargetFailure(reason)


def document_from_bytes(data: bytes, *, origin: str, stderr: str | None = None) -> JsonObject:
    """Strictly parse ``data`` as a result document: UTF-8 JSON text holding one object.
    ``origin`` names where it came from ("command stdout"); reasons give positions, never
    content."""
    reason: str | None = None
    value: Any = None
    if not data.strip():
        reason = f"{origin} is empty, not a JSON object"
    else:
        try:
            value = parse_json_text(origin, decode_utf8(origin, data)).value
        except JsonSyntaxError as error:
            reason = f"{origin} is not strict JSON (line {error.line}, column {error.column})"
    if reason is None and not isinstance(value, dict):
        reason = f"{origin} is a JSON {json_type_name(value)}, not a JSON object"
    if reason is not None:
        raise TargetFailure(reason, stderr=stderr)
    return value  # type: ignore[no-any-return]


_JSON_KINDS = frozenset({"null", "boolean", "number", "string", "array"})


# Private control flow that never leaves this module: outside GoldgateError on purpose
# (tests/test_layout.py lists it).
class _NotJson(Exception):
    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def _plain(value: Any, depth: int) -> Any:
    if value is None:
        return None
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _NotJson("a number that is NaN or infinite")
        return float(value)
    if isinstance(value, str):
        return str(value)
    if depth >= MAX_DEPTH:
        raise _NotJson(f"values nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotJson(f"an object key of type {type(key).__name__}")
            result[str(key)] = _plain(item, depth + 1)
        return result
    if isinstance(value, list | tuple):
        return [_plain(item, depth + 1) for item in value]
    raise _NotJson(f"a value of type {type(value).__name__}")


def _fast_copy(value: Mapping[str, Any]) -> tuple[JsonObject, int] | None:
    """The copy and its size through orjson, when orjson alone can tell that ``value`` is
    JSON. orjson refuses what is not (other types, non-string keys, lone surrogates, integers
    beyond 64 bits, nesting past its limit) but writes NaN and infinities as ``null``: so
    text with a ``null`` in it takes the careful path, which tells the two apart."""
    try:
        data = orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return None
    if b"null" in data:
        return None
    document: JsonObject = orjson.loads(data)
    return document, len(data)


def plain_document(value: object, *, who: str, max_bytes: int) -> JsonObject:
    """A plain JSON copy of a Python value returned as a result document: an object with
    string keys, finite numbers and JSON values only, at most ``max_bytes`` as compact UTF-8
    JSON text."""
    if not isinstance(value, Mapping):
        kind = json_type_name(value)
        what = f"a JSON {kind}" if kind in _JSON_KINDS else f"a value of type {kind}"
        raise TargetFailure(f"{who} returned {what}, not a JSON object")
    fast = _fast_copy(value)
    if fast is not None:
        copied, size = fast
        if size > max_bytes:
            raise TargetFailure(
                f"{who} returned a result of {size} bytes, over the {max_bytes} limit"
            )
        return copied
    reason: str | None = None
    try:
        document: JsonObject = _plain(value, 0)
        size = len(
            json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode(
                "utf-8"
            )
        )
    except _NotJson as error:
        reason = f"{who} returned a result that is not JSON: it holds {error.what}"
    except UnicodeEncodeError:
        reason = f"{who} returned a result that is not JSON: it holds a string that is not UTF-8"
    except ValueError:  # an integer past Python's limit on digits it will write as text
        reason = f"{who} returned a result that is not JSON: it holds a number too long to write"
    except RecursionError:
        reason = f"{who} returned a result nested too deeply to be JSON"
    if reason is not None:
        problem = unholdable(value)  # what and where, never the value
        if problem is not None:
            at = f" at {problem.where}" if problem.where else ""
            reason = f"{who} returned a result that is not JSON: it holds {problem.what}{at}"
        raise TargetFailure(reason)
    if size > max_bytes:
        raise TargetFailure(f"{who} returned a result of {size} bytes, over the {max_bytes} limit")
    return document

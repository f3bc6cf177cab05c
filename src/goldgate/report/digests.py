"""Digests that name a value or a file without showing it: what a mismatch message prints
instead of the private value on either side."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from goldgate.base.jsonvalue import canonical_json

__all__ = ["bytes_digest", "value_digest"]


def bytes_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def value_digest(value: Any) -> str:
    """sha256 over a JSON value with sorted keys: equal digests, equal values. orjson where
    it can (a few microseconds a value), the canonical writer for what it refuses."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        text = canonical_json(value).encode("utf-8")
    return bytes_digest(text)

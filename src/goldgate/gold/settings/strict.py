"""What every settings model shares: refusing unknown keys, frozen values, and the names and
patterns the models check against."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

from goldgate.base.textsafe import quote, redact_url, refuse_control

IMPORT_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
HTTP_URL = re.compile(r"https?://[^/\s]+")

Printable = Annotated[str, AfterValidator(refuse_control)]
"""A name or revision that is printed and recorded: no control characters."""


class Strict(BaseModel):
    """A settings model: unknown keys refused (a typo must not silently disable a setting),
    frozen, and no coercion between types."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


def check_env_name(value: str) -> str:
    """``value`` if it is an environment variable's name; ``ValueError`` otherwise."""
    if not ENV_NAME.fullmatch(value):
        raise ValueError(f"{quote(value)} is not an environment variable name")
    return value


def check_http_url(value: str) -> str:
    """``value`` if it is an http:// or https:// URL; ``ValueError`` naming it redacted."""
    if not HTTP_URL.match(value):
        raise ValueError(f"{quote(redact_url(value))} is not an http:// or https:// URL")
    return value

"""How the renderers load their Jinja templates (``goldgate/render/templates``): one home for
the settings every template is written against."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined


def template_environment(
    *, finalize: Callable[[Any], Any], autoescape: bool, keep_trailing_newline: bool = False
) -> Environment:
    """An environment over the renderers' templates: an undefined name raises, a block tag
    takes its own line break and indentation with it, and every ``{{ expression }}`` passes
    through ``finalize``."""
    return Environment(
        loader=PackageLoader("goldgate.render", "templates"),
        autoescape=autoescape,
        finalize=finalize,
        undefined=StrictUndefined,
        keep_trailing_newline=keep_trailing_newline,
        trim_blocks=True,
        lstrip_blocks=True,
    )

"""How the renderers load their Jinja templates (``goldgate/render/templates``): one home for
the settings every template is written against, and their code compiled ahead.

Compiling a template (Jinja's lexer, parser and code generator) cost the publishing step
about 0.15 CPU-s at every run. Each template's Python code is generated once, ahead
(``render.precompile`` writes ``render/_precompiled.py``: ``scripts/precompile_templates.py``,
tests/render/test_precompiled.py fails when it is stale), and handed to Jinja as its bytecode
cache would hand it (``_Precompiled``). Only where it is the code of the very template with
the very settings and Jinja version: the source's and settings' digest is checked at each
load, and a template whose code is not there (edited since, another Jinja) is compiled as
before. The output is the same either way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import jinja2
from jinja2 import Environment, PackageLoader, StrictUndefined
from jinja2.bccache import Bucket, BytecodeCache


def template_environment(
    *,
    finalize: Callable[[Any], Any],
    autoescape: bool,
    keep_trailing_newline: bool = False,
    kind: str,
) -> Environment:
    """An environment over the renderers' templates: an undefined name raises, a block tag
    takes its own line break and indentation with it, and every ``{{ expression }}`` passes
    through ``finalize``. ``kind`` (markdown, html) names its templates' precompiled code."""
    return Environment(
        loader=PackageLoader("goldgate.render", "templates"),
        autoescape=autoescape,
        finalize=finalize,
        undefined=StrictUndefined,
        keep_trailing_newline=keep_trailing_newline,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=_Precompiled(kind),
    )


def template_digest(environment: Environment, source: str) -> str:
    """What the code generated for ``source`` depends on: the source, the environment's
    settings that the lexer and the code generator read, Jinja's version."""
    finalize = environment.finalize
    settings = (
        jinja2.__version__,
        environment.block_start_string,
        environment.block_end_string,
        environment.variable_start_string,
        environment.variable_end_string,
        environment.comment_start_string,
        environment.comment_end_string,
        environment.line_statement_prefix,
        environment.line_comment_prefix,
        environment.trim_blocks,
        environment.lstrip_blocks,
        environment.newline_sequence,
        environment.keep_trailing_newline,
        environment.optimized,
        environment.autoescape if isinstance(environment.autoescape, bool) else "function",
        None if finalize is None else getattr(finalize, "__qualname__", "finalize"),
        tuple(sorted(environment.extensions)),
    )
    text = repr(settings) + "\0" + source
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class _Precompiled(BytecodeCache):
    """Jinja's bytecode cache, holding each template's code as ``render/_precompiled.py``
    has it (Python source, compiled here: no marshalled bytes, which tie to one Python)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def get_bucket(
        self, environment: Environment, name: str, filename: str | None, source: str
    ) -> Bucket:
        from goldgate.render._precompiled import CODE

        bucket = Bucket(environment, name, "")
        found = CODE.get((self.kind, name))
        if found is not None and found[0] == template_digest(environment, source):
            bucket.code = compile(found[1], filename or name, "exec")
        return bucket

    def set_bucket(self, bucket: Bucket) -> None:
        return None

    def load_bytecode(self, bucket: Bucket) -> None:  # pragma: no cover - get_bucket's
        return None

    def dump_bytecode(self, bucket: Bucket) -> None:  # pragma: no cover - get_bucket's
        return None

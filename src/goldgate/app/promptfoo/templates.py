"""promptfoo's Nunjucks templates: rendered at import time with a sandboxed jinja2 that behaves
as Nunjucks does for what promptfoo's docs use, or turned into the ``model`` target's
``{/payload/var}`` placeholders where a template is nothing but text and variables.

A value is printed as JavaScript's ``String()`` prints it (``true``, ``1``, ``1.5``, an array
joined by commas, ``[object Object]``, nothing for null); ``dump`` is ``JSON.stringify``.
A template jinja2 cannot render exactly raises ``Unrenderable`` with why.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from goldgate.app.errors import Unrenderable

__all__ = ["Unrenderable", "as_placeholders", "js_string", "render", "render_prompt"]


def js_number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        return f"{mantissa}e{sign}{int(exponent.lstrip('+-'))}"
    return text


def js_string(value: Any) -> str:
    """JavaScript's ``String(value)`` for a JSON value (Nunjucks prints null as nothing)."""
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


def _dump(value: Any, indent: int | None = None) -> str:
    if value is None:
        return "null"
    return json.dumps(
        value,
        ensure_ascii=False,
        indent=indent,
        separators=(",", ":") if indent is None else (",", ": "),
    )


_UNSUPPORTED = re.compile(
    r"\{%-?\s*(?:macro|call|import|from|include|extends|block|asyncEach|"
    r"asyncAll|ifAsync|filter)\b"
)


def _environment() -> Any:
    from jinja2 import ChainableUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def finalize(value: Any) -> str:
        return "" if isinstance(value, ChainableUndefined) else js_string(value)

    environment = ImmutableSandboxedEnvironment(
        autoescape=False,
        keep_trailing_newline=True,
        finalize=finalize,
        undefined=ChainableUndefined,
    )
    environment.filters["dump"] = _dump
    environment.filters["json"] = _dump
    return environment


_ENVIRONMENT: list[Any] = []


def render(template: str, variables: Mapping[str, Any]) -> str:
    """``template`` rendered with ``variables`` as promptfoo renders it."""
    if _UNSUPPORTED.search(template):
        raise Unrenderable("it uses a Nunjucks tag jinja2 does not render the same way")
    from jinja2 import TemplateError

    if not _ENVIRONMENT:
        _ENVIRONMENT.append(_environment())
    try:
        return str(_ENVIRONMENT[0].from_string(template).render(dict(variables)))
    except TemplateError as error:
        raise Unrenderable(f"jinja2 cannot render it ({error})") from None
    except (TypeError, ValueError, AttributeError) as error:
        raise Unrenderable(f"jinja2 cannot render it ({type(error).__name__})") from None


_VARIABLE = re.compile(r"\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)\s*-?\}\}")
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def as_placeholders(template: str, root: str = "/payload") -> tuple[str, frozenset[str]] | None:
    """The goldgate template for a Nunjucks template that is text and ``{{ var }}`` only
    (literal braces doubled), and the variables it reads; None when it does more."""
    if "{%" in template or "{#" in template or "{{-" in template or "-}}" in template:
        return None
    pieces: list[str] = []
    names: set[str] = set()
    position = 0
    for match in _VARIABLE.finditer(template):
        pieces.append(_literal(template[position : match.start()]))
        if pieces[-1] is None:
            return None
        name = match.group(1)
        names.add(name)
        pieces.append("{" + f"{root}/{name}" + "}")
        position = match.end()
    rest = _literal(template[position:])
    if rest is None:
        return None
    return "".join([*pieces, rest]), frozenset(names)


def _literal(text: str) -> Any:
    if "{{" in text or "}}" in text:
        return None  # an expression this translation does not read
    return text.replace("{", "{{").replace("}", "}}")


_PARTIAL = re.compile(r"({%[^%]*$|{{[^}]*$|{#[^#]*$)", re.MULTILINE)
_WRAPPED = (re.compile(r"{%\s*raw\s*%}"), re.compile(r"{%\s*endraw\s*%}"))


def _wrapped(template: str) -> str:
    """promptfoo's ``autoWrapRawIfPartialNunjucks``: a template with an unclosed tag is
    printed as it is (``{% raw %}``)."""
    if _PARTIAL.search(template) and not all(p.search(template) for p in _WRAPPED):
        return "{% raw %}" + template + "{% endraw %}"
    return template


def _undefined(template: str, variables: Mapping[str, Any]) -> bool:
    """Whether ``template`` names a variable ``variables`` lacks (``env`` aside)."""
    from jinja2 import TemplateSyntaxError, meta

    if not _ENVIRONMENT:
        _ENVIRONMENT.append(_environment())
    try:
        names = meta.find_undeclared_variables(_ENVIRONMENT[0].parse(template))
    except TemplateSyntaxError:
        return True
    return any(name != "env" and name not in variables for name in names)


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _render_object(value: Any, variables: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        return render(value, variables)
    if isinstance(value, list):
        return [_render_object(item, variables) for item in value]
    if isinstance(value, dict):
        return {key: _render_object(item, variables) for key, item in value.items()}
    return value


def render_prompt(template: str, variables: Mapping[str, Any]) -> str:
    """A prompt rendered as promptfoo 0.123's ``renderPrompt`` renders it: a prompt that is
    JSON has each of its strings rendered and is written back indented by two; any other has
    its string vars rendered first (those naming no missing variable), and an unclosed tag
    printed as it is."""
    try:
        parsed = json.loads(template, parse_constant=_no_constant)
    except ValueError:
        pass
    else:
        return json.dumps(_render_object(parsed, variables), ensure_ascii=False, indent=2)
    rendered = {
        key: render(_wrapped(value), variables)
        if isinstance(value, str) and not _undefined(value, variables)
        else value
        for key, value in variables.items()
    }
    return render(_wrapped(template), rendered)

"""Safe YAML with positions: duplicate keys refused, every value's line and column known."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from goldgate.base.errors import InvalidInputError
from goldgate.base.files import read_regular_file
from goldgate.base.strictjson import utf8_error_place
from goldgate.base.textsafe import escape_control, quote
from goldgate.gold.errors import YamlSyntaxError


@dataclass(frozen=True)
class YamlDocument:
    source: str
    value: Any
    _values: dict[tuple[str, ...], tuple[int, int]]
    _keys: dict[tuple[str, ...], tuple[int, int]]

    def position(self, path: Sequence[str | int]) -> tuple[int, int]:
        tokens = tuple(str(token) for token in path)
        if tokens in self._keys:
            return self._keys[tokens]
        for length in range(len(tokens), -1, -1):
            if tokens[:length] in self._values:
                return self._values[tokens[:length]]
        return 1, 1


class _SafeLoader(yaml.SafeLoader):
    """The safe loader, with a scalar it cannot build (a date such as 2020-13-01, an integer
    too long to convert) reported at its place instead of escaping as a ValueError."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as error:
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot load this value ({error})", node.start_mark
            ) from None

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        # YAML 1.1 reads the key `on` (retry: {on: [...]}), `off`, `yes` and `no` as booleans;
        # a settings key is always a name, so such a key stays the word it is.
        for key_node, _ in node.value:
            if (
                isinstance(key_node, yaml.ScalarNode)
                and key_node.tag == _BOOL_TAG
                and key_node.style is None
                and str(key_node.value).lower() not in ("true", "false")
            ):
                key_node.tag = _STR_TAG
        return super().construct_mapping(node, deep=deep)


_BOOL_TAG = "tag:yaml.org,2002:bool"
_STR_TAG = "tag:yaml.org,2002:str"


class _CoreLoader(_SafeLoader):
    """YAML 1.2's core schema (as js-yaml and so promptfoo read YAML): only ``true``/``false``
    (in three spellings) are booleans, so ``body: Yes`` and ``on`` stay strings; ``~``,
    ``null`` and nothing are null; integers are decimal, ``0o`` octal or ``0x`` hex (``010``
    is ten, ``1_000`` a string); no sexagesimal numbers. Timestamps stay as js-yaml's default
    schema reads them (PyYAML's dates)."""

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        text = str(self.construct_scalar(node))
        sign = -1 if text.startswith("-") else 1
        digits = text.lstrip("+-")
        if digits.startswith("0o"):
            return sign * int(digits[2:], 8)
        if digits.startswith("0x"):
            return sign * int(digits[2:], 16)
        return sign * int(digits, 10)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        return yaml.SafeLoader.construct_mapping(self, node, deep=deep)


_CoreLoader.yaml_implicit_resolvers = {}  # its own resolvers, below, not SafeLoader's
_CoreLoader.add_constructor("tag:yaml.org,2002:int", _CoreLoader.construct_yaml_int)
for _tag, _pattern, _first in (
    (_BOOL_TAG, r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", "~nN\0"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
    (
        "tag:yaml.org,2002:timestamp",
        r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
        r"(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
        r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$",
        "0123456789",
    ),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<"),
):
    _CoreLoader.add_implicit_resolver(
        _tag, re.compile(_pattern), [None if c == "\0" else c for c in _first]
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse_surrogates(source: str, node: yaml.Node) -> None:
    # "\ud800" in a double-quoted scalar loads as a lone surrogate: not a character, so it
    # could be neither hashed into the digest nor printed.
    if isinstance(node, yaml.ScalarNode) and _SURROGATE.search(str(node.value)):
        line, column = _mark(node)
        message = "string holds a lone UTF-16 surrogate, which is not a character"
        raise YamlSyntaxError(source, line, column, message)


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _index(
    source: str,
    node: yaml.Node,
    path: tuple[str, ...],
    *,
    values: dict[tuple[str, ...], tuple[int, int]],
    keys: dict[tuple[str, ...], tuple[int, int]],
    visited: set[int],
) -> None:
    values[path] = _mark(node)
    if id(node) in visited:
        return  # an alias: indexed where its anchor is, and never expanded (no alias bombs)
    visited.add(id(node))
    _refuse_surrogates(source, node)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            _refuse_surrogates(source, key_node)
            key = str(key_node.value)
            if key in seen:
                line, column = _mark(key_node)
                raise YamlSyntaxError(source, line, column, f"duplicate key {quote(key)}")
            seen.add(key)
            keys[(*path, key)] = _mark(key_node)
            _index(source, value_node, (*path, key), values=values, keys=keys, visited=visited)
    elif isinstance(node, yaml.SequenceNode):
        for position, item in enumerate(node.value):
            _index(source, item, (*path, str(position)), values=values, keys=keys, visited=visited)


def _indexed(
    source: str,
    node: yaml.Node,
    values: dict[tuple[str, ...], tuple[int, int]],
    keys: dict[tuple[str, ...], tuple[int, int]],
) -> YamlSyntaxError | None:
    """``node`` indexed into ``values`` and ``keys``; the problem found (a duplicate key, a
    lone surrogate), or None."""
    try:
        _index(source, node, (), values=values, keys=keys, visited=set())
    except YamlSyntaxError as problem:
        return problem
    except RecursionError:  # pragma: no cover - composing fails first
        return YamlSyntaxError(source, 1, 1, "nested too deeply to load")
    return None


def load_yaml_file(
    path: Path, display: str | None = None, *, core_schema: bool = False
) -> YamlDocument:
    """Parse one YAML file with the safe loader; problems name the file, line and column.
    Only a regular file within the size cap is read (see ``goldgate.base.files``).
    ``core_schema``: read it as YAML 1.2 does (``_CoreLoader``), for other tools' files."""
    source = display or str(path)
    data = read_regular_file(path, source, what="a YAML file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = utf8_error_place(data, error)
        raise YamlSyntaxError(
            source, line, column, f"not UTF-8 text (byte 0x{data[error.start]:02x})"
        ) from None
    values: dict[tuple[str, ...], tuple[int, int]] = {}
    keys: dict[tuple[str, ...], tuple[int, int]] = {}
    indexed: YamlSyntaxError | None = None
    # One parse: the node tree is indexed before the value is built from it (building merges
    # ``<<`` keys into the tree), and what building refuses is said before what the index
    # found, as when the two parsed the text apart.
    loader = (_CoreLoader if core_schema else _SafeLoader)(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            indexed = _indexed(source, node, values, keys)
        value = loader.construct_document(node) if node is not None else None
    except RecursionError:
        raise YamlSyntaxError(source, 1, 1, "nested too deeply to load") from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = (error.problem or error.context or "invalid YAML").strip()
        raise YamlSyntaxError(source, line, column, problem) from None
    except yaml.YAMLError as error:
        raise InvalidInputError(escape_control(f"{source}: invalid YAML ({error}).")) from None
    finally:
        loader.dispose()
    if indexed is not None:
        raise indexed
    return YamlDocument(source, value, values, keys)

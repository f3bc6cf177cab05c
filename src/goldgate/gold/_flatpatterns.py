"""Flat patterns compiled in one pass: the program ``re`` would generate for them, made
without its general parser and code generator.

Gold patterns are mostly flat: a ticket number and a word boundary (``T-123\\b``), a literal
phrase, an anchored code (``^INV-\\d\\d\\d$``). Each is distinct, so each is compiled anew, and
``re``'s parser and code generator, pure Python, walk such a pattern one character at a time
through all their branches: a quarter of the whole check of gold like that. A flat
pattern is one item after another, never a repeat, a group, a set or an alternation: a
character, an escaped punctuation mark, ``.``, ``^``, ``$``, or one of
``\\a \\f \\n \\r \\t \\v \\\\`` and ``\\A \\b \\B \\d \\D \\s \\S \\w \\W \\Z``.

Its program is an information block (the pattern's width and its literal prefix with that
prefix's overlap table, or the set its first character must be in) followed by each item's
instructions in turn and ``SUCCESS``. Each item's instructions, and the set an item puts in
the information block, are taken from ``re`` itself, compiling that item alone once; only the
assembly is done here, as ``re._compiler._compile_info`` does it. Where this Python's ``re``
does not generate exactly that for every probe below, nothing is compiled here
(``flat_program`` returns None) and ``re`` compiles every pattern; the tests compare the two on
thousands of generated patterns.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`): a named
# tuple's string annotations are each compiled as a forward reference when the class is made,
# a third of this module's import.
import functools
import re
from typing import Any, Final, NamedTuple

__all__ = ["FlatProgram", "flat_program", "is_flat"]

_FLAT: Final = r"(?:[^\\*+?{}\[\]()|]|\\[^0-9A-Za-z]|\\[afnrtvAbBdDsSwWZ])*"
"""A flat pattern: characters that are not syntax, or escapes whose meaning is one item. A
``]`` or ``}`` alone is a literal to ``re``, but rare enough to leave to it."""
_ITEM: Final = r"\\.|."
"""One item of a flat pattern."""
_PLAIN_RUN: Final = r"[^\\.^$]*"
"""Characters of a flat pattern that are literals themselves."""
# (Compiled with the tables, on first use: a run whose gold has no pattern pays nothing.)

_LONGEST: Final = 1 << 16
"""Longer patterns are left to ``re`` (which caps a width past its largest code)."""

_SPECIAL_ITEMS: Final = (".", "^", "$", *(f"\\{letter}" for letter in "AbBdDsSwWZ"))
_LITERAL_ESCAPES: Final = tuple(f"\\{letter}" for letter in "afnrtv\\")


class _Item(NamedTuple):
    """What an item that is not a literal adds: its instructions, its width (0 for an
    anchor, else 1), and, when it comes first, the information block's mask and set."""

    code: tuple[int, ...]
    width: int
    lead_mask: int
    lead_set: tuple[int, ...]


class FlatProgram(NamedTuple):
    """A flat pattern's flags and program, as ``re`` compiles it (no groups)."""

    flags: int
    code: list[int]


class _Tables(NamedTuple):
    flat: re.Pattern[str]
    item: re.Pattern[str]
    plain_run: re.Pattern[str]
    flags: int
    info: int
    literal: int
    success: int
    prefix_mask: int
    literal_mask: int
    overlap: Any
    literal_escapes: dict[str, int]
    items: dict[str, _Item]


def _compiled_alone(token: str) -> list[int]:
    generate = re._compiler._code  # type: ignore[attr-defined]
    code: list[int] = generate(re._parser.parse(token, 0), 0)  # type: ignore[attr-defined]
    return code


def _item(token: str) -> _Item:
    whole = _compiled_alone(token)
    info_end = whole[1] + 1  # the information block's length follows its opcode
    info = whole[:info_end]
    return _Item(tuple(whole[info_end:-1]), info[3], info[2], tuple(info[5:]))


@functools.cache
def _tables() -> _Tables | None:
    """What assembles a flat program, taken from this Python's ``re``; None where ``re`` is not
    built so, or does not compile every probe to the program assembled here."""
    try:
        constants, compiler = re._constants, re._compiler  # type: ignore[attr-defined]
        tables = _Tables(
            flat=_flat(),
            item=re.compile(_ITEM, re.DOTALL),
            plain_run=re.compile(_PLAIN_RUN),
            flags=re._parser.parse("", 0).state.flags,  # type: ignore[attr-defined]
            info=int(constants.INFO),
            literal=int(constants.LITERAL),
            success=int(constants.SUCCESS),
            prefix_mask=int(constants.SRE_INFO_PREFIX),
            literal_mask=int(constants.SRE_INFO_LITERAL),
            overlap=compiler._generate_overlap_table,
            literal_escapes={token: _compiled_alone(token)[-2] for token in _LITERAL_ESCAPES},
            items={token: _item(token) for token in _SPECIAL_ITEMS},
        )
        for probe in _PROBES:
            made = _assemble(probe, tables)
            if made is None or made.code != _compiled_alone(probe) or made.flags != tables.flags:
                return None  # pragma: no cover - this Python's re compiles them so
        return tables
    except Exception:  # pragma: no cover - any failure means "leave every pattern to re"
        return None


_PROBES: Final = (
    "",
    "\\b",
    "T-12345\\b",
    "refund",
    "aab aab aac",
    "^INV-\\d\\d\\d$",
    "\\d\\D\\s\\S\\w\\W",
    ".x",
    "a.b\\.c\\-d\\\\e\\#\\ \\é",
    "\\A\\B\\Z",
    "\\a\\f\\n\\r\\t\\v\\\\x",
    "é ü 𝄞 \x00 # not a comment",
)


def _assemble(pattern: str, tables: _Tables) -> FlatProgram | None:
    if len(pattern) > _LONGEST or tables.flat.fullmatch(pattern) is None:
        return None
    literal = tables.literal
    # The leading run of plain characters, at C speed: all of a literal pattern, and most of
    # a ticket number's (T-123456 of T-123456\b).
    run = tables.plain_run.match(pattern).end()  # type: ignore[union-attr]  # it matches ""
    prefix = [*map(ord, pattern[:run])] if run else []
    body = [literal] * (2 * run)
    body[1::2] = prefix
    width, in_prefix = run, True
    first: _Item | None = None  # the item a pattern without a literal prefix starts with
    if run < len(pattern):
        items, literal_escapes = tables.items, tables.literal_escapes
        for token in tables.item.findall(pattern, run):
            item = items.get(token)
            if item is None:  # a character, a literal escape or an escaped punctuation mark
                character = literal_escapes.get(token) or ord(token[-1])
                body += (literal, character)
                width += 1
                if in_prefix:
                    prefix.append(character)
            else:
                body += item.code
                width += item.width
                if in_prefix and not prefix:
                    first = item
                in_prefix = False
    if width == 0:
        info = [tables.info, 4, 0, 0, 0]
    elif prefix:
        mask = tables.prefix_mask | (tables.literal_mask if in_prefix else 0)
        size = len(prefix)
        # A prefix whose first character does not come again cannot overlap itself.
        overlap = [0] * size if prefix.count(prefix[0]) == 1 else tables.overlap(prefix)
        info = [tables.info, 0, mask, width, width, size, size, *prefix, *overlap]
        info[1] = len(info) - 1
    else:  # a flat pattern without a literal prefix starts with an item that is not one
        assert first is not None
        info = [tables.info, 0, first.lead_mask, width, width, *first.lead_set]
        info[1] = len(info) - 1
    info += body
    info.append(tables.success)
    return FlatProgram(tables.flags, info)


@functools.cache
def _flat() -> re.Pattern[str]:
    return re.compile(_FLAT)


def is_flat(pattern: str) -> bool:
    """Whether ``pattern`` is flat (and not too long for ``flat_program``): then it compiles,
    whatever program this Python's ``re`` makes of it, since each of its items is a character,
    an escaped punctuation mark or non-ASCII character (a literal to ``re``), or an escape
    ``re`` knows."""
    return len(pattern) <= _LONGEST and _flat().fullmatch(pattern) is not None


def flat_program(pattern: str) -> FlatProgram | None:
    """``pattern``'s flags and program as ``re`` compiles it, when the pattern is flat; None
    for any other pattern (or where this Python's ``re`` compiles differently), for ``re``."""
    tables = _tables()
    return None if tables is None else _assemble(pattern, tables)

"""The comment as GitHub shows it: rendered by cmark-gfm and measured as its stylesheet lays
it out, so that tests can ask what a reviewer sees.

``cmarkgfm`` binds GitHub's own fork of cmark (cmark-gfm, the parser github.com renders
comments with) and its extensions (tables, strikethrough, autolinks, the tag filter), so a
table, a ``<details>`` block or an escape is read exactly as GitHub reads it; a CommonMark
parser with plugins (markdown-it-py) only imitates those rules. Raw HTML is kept (GitHub
sanitizes it afterwards but keeps ``<details>``, ``<summary>`` and comments).

How wide a table is at 800 pixels (the comment column of a pull request's conversation tab)
is estimated from its cells' text, with GitHub's stylesheet for comments
(``.markdown-body``): 14 px text, whose characters average ``CHAR_PX`` pixels in the
system sans-serif fonts (a conservative figure: lower-case letters and digits are about 7
to 8 px, capitals more, punctuation less), and cells padded 6 px × 13 px with a 1 px border,
``CELL_PX`` pixels a cell. A table is laid out ``width: max-content; max-width: 100%;
overflow: auto``: it grows to its cells' natural width and, past the column, wraps its cells
between words; it scrolls sideways only when even its narrowest layout, every column as wide
as its longest word, is wider than the column. So:

- ``natural_width``: every cell on one line: the sum over columns of the longest cell;
- ``narrowest_width``: every cell wrapped between words: the sum over columns of the
  longest word (an unbreakable run of characters);

and a table reads at 800 px without a horizontal scroll when its narrowest width is at
most 800.
"""

from __future__ import annotations

from dataclasses import dataclass

import cmarkgfm
from cmarkgfm.cmark import Options
from lxml import html

COLUMN_PX = 800
"""The comment column of a pull request's conversation tab."""
CHAR_PX = 7.5
"""Average width of a character of 14 px system sans-serif text."""
CELL_PX = 2 * 13 + 1
"""A cell's horizontal padding and border."""


def render(markdown: str) -> html.HtmlElement:
    """``markdown`` as GitHub renders it (cmark-gfm with GitHub's extensions), parsed."""
    rendered = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return html.fragment_fromstring(rendered, create_parent="div")


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def _cells(self) -> list[list[str]]:
        return [list(self.columns), *(list(row) for row in self.rows)]

    def natural_width(self) -> float:
        """Pixels with every cell on one line."""
        cells = self._cells()
        longest = [
            max(len(row[i]) for row in cells if i < len(row)) for i in range(len(self.columns))
        ]
        return sum(CELL_PX + CHAR_PX * length for length in longest)

    def narrowest_width(self) -> float:
        """Pixels with every cell wrapped between words."""
        cells = self._cells()
        longest = [
            max((len(word) for row in cells if i < len(row) for word in row[i].split()), default=0)
            for i in range(len(self.columns))
        ]
        return sum(CELL_PX + CHAR_PX * length for length in longest)


def tables(document: html.HtmlElement) -> list[Table]:
    """Every table of a rendered document, with its cells' text as shown."""
    found = []
    for table in document.iter("table"):
        columns = tuple(cell.text_content().strip() for cell in table.iter("th"))
        rows = tuple(
            tuple(cell.text_content().strip() for cell in row.iter("td"))
            for row in table.iter("tr")
            if row.find("td") is not None
        )
        found.append(Table(columns, rows))
    return found


def first_screen(document: html.HtmlElement) -> list[html.HtmlElement]:
    """What a reviewer reads before the first section: the elements before the first
    ``<h3>``."""
    shown = []
    for element in document:
        if not isinstance(element.tag, str):  # the hidden marker: a comment, not shown
            continue
        if element.tag == "h3":
            break
        shown.append(element)
    return shown

"""The HTML page's figures as geometry: what ``templates/page_figures.html.j2`` draws as
inline SVG (a confusion heatmap, precision/recall/F1 bars, a latency histogram).

Why inline SVG from templates: the page is one file that must open offline, so nothing can
come from a CDN, and a charting library inlined would weigh more than every figure of a
large report together (and would need a build step to stay small). SVG written here is a few
hundred bytes a figure, escaped by the template like any other text, readable without a
script, and its parts are elements: the browser tests count a heatmap's cells and read each
cell's gold and predicted label from the DOM.

Everything here is pure: numbers in, frozen dataclasses out; labels are made safe and
short with ``render.text``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from goldgate.comparison.stats import nearest_rank
from goldgate.render import text
from goldgate.scoring.metrics import ClassificationMetricResult

CELL = 40
"""A heatmap cell's side, in SVG units."""
AXIS_LABEL = 22
"""Characters of a label drawn on an axis (the whole label is the cell's title)."""
_CHAR = 6.6
"""The width of one character of an axis label (12px sans-serif), to size the margins."""

_CORRECT = (37, 99, 235)
_CONFUSED = (220, 38, 38)
_UNAVAILABLE = (107, 114, 128)


def label_text(label: str | None) -> str:
    """A catalog label as shown: ``null`` for the null label."""
    return "null" if label is None else text.name(label)


def _short(label: str) -> str:
    return label if len(label) <= AXIS_LABEL else label[: AXIS_LABEL - 1] + text.ELLIPSIS


def _mix(color: tuple[int, int, int], weight: float) -> str:
    """``color`` over white at ``weight`` (0: white, 1: the color)."""
    weight = min(1.0, max(0.0, weight))
    red, green, blue = (round(255 + (part - 255) * weight) for part in color)
    return f"#{red:02x}{green:02x}{blue:02x}"


@dataclass(frozen=True)
class HeatCell:
    gold: str
    predicted: str
    count: int
    kind: str
    """correct (on the diagonal), confused (another label) or unavailable (not a prediction)."""
    x: float
    y: float
    fill: str
    ink: str
    """The count's colour: ``dark`` on a light cell, ``light`` on a dark one."""
    share: float
    """The cell's share of its gold row."""


@dataclass(frozen=True)
class Heatmap:
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: tuple[HeatCell, ...]
    left: float
    top: float
    width: float
    height: float
    cell: float = CELL

    def short(self, label: str) -> str:
        return _short(label)

    def row_y(self, index: int) -> float:
        return self.top + index * CELL + CELL / 2

    def column_x(self, index: int) -> float:
        return self.left + index * CELL + CELL / 2


def heatmap(metric: ClassificationMetricResult) -> Heatmap:
    """The confusion matrix as cells: rows gold, columns predicted (the catalog, then the
    unavailable kinds); each cell shaded by its share of its row."""
    confusion = metric.confusion
    rows = tuple(label_text(label) for label in confusion.rows)
    catalog = len(confusion.rows)
    columns = tuple(label_text(label) for label in confusion.columns)
    longest_row = max((len(_short(label)) for label in rows), default=4)
    longest_column = max((len(_short(label)) for label in columns), default=4)
    left = 16 + longest_row * _CHAR
    # Column labels are drawn at 45 degrees: their height is their length over the root of 2.
    top = 16 + longest_column * _CHAR * 0.72
    cells = []
    for r, row in enumerate(confusion.matrix):
        total = sum(row)
        for c, count in enumerate(row):
            if c >= catalog:
                kind, color = "unavailable", _UNAVAILABLE
            elif c == r:
                kind, color = "correct", _CORRECT
            else:
                kind, color = "confused", _CONFUSED
            share = count / total if total else 0.0
            weight = 0.08 + 0.92 * share if count else 0.0
            cells.append(
                HeatCell(
                    rows[r],
                    columns[c],
                    count,
                    kind,
                    left + c * CELL,
                    top + r * CELL,
                    _mix(color, weight),
                    "light" if weight > 0.55 else "dark",
                    share,
                )
            )
    width = left + len(columns) * CELL + 24 + len(_short(columns[-1])) * _CHAR * 0.72
    return Heatmap(rows, columns, tuple(cells), left, top, width, top + len(rows) * CELL + 8)


# --- bars ---------------------------------------------------------------------------------------

BAR_WIDTH = 240
"""The length of a bar at 1.0, in SVG units."""
BAR_HEIGHT = 10


@dataclass(frozen=True)
class Bar:
    measure: str
    value: float
    length: float
    y: float
    before: float | None = None
    """The baseline's value, when a comparison has one."""
    before_x: float | None = None


@dataclass(frozen=True)
class BarGroup:
    label: str
    y: float
    bars: tuple[Bar, ...]
    average: bool
    """micro or macro, drawn apart from the labels."""


@dataclass(frozen=True)
class Bars:
    groups: tuple[BarGroup, ...]
    left: float
    width: float
    height: float
    bar_height: float = BAR_HEIGHT

    @property
    def value_x(self) -> float:
        """Where each bar's value is written: past the longest bar and any baseline tick."""
        return self.left + BAR_WIDTH + 8

    @property
    def compared(self) -> bool:
        """Whether any bar shows the baseline's value beside its own."""
        return any(bar.before is not None for group in self.groups for bar in group.bars)

    def short(self, label: str) -> str:
        return _short(label)


MEASURES = ("precision", "recall", "f1")

Scores = tuple[str, dict[str, float], dict[str, float | None], bool]
"""One group of bars: its label, each measure's value, the baseline's (or empty), and
whether it is an average."""


def bars(groups: Sequence[Scores]) -> Bars:
    """Precision, recall and F1 bars for each label and the averages."""
    longest = max((len(_short(label)) for label, *_ in groups), default=5)
    left = 12 + longest * _CHAR
    drawn: list[BarGroup] = []
    y = 6.0
    for label, values, before, average in groups:
        if average and drawn and not drawn[-1].average:
            y += 10  # a gap between the labels and the averages
        shown = []
        for index, measure in enumerate(MEASURES):
            value = values.get(measure, 0.0)
            then = before.get(measure)
            shown.append(
                Bar(
                    measure,
                    value,
                    BAR_WIDTH * _unit(value),
                    y + index * (BAR_HEIGHT + 2),
                    then,
                    None if then is None else left + BAR_WIDTH * _unit(then),
                )
            )
        drawn.append(BarGroup(label, y, tuple(shown), average))
        y += 3 * (BAR_HEIGHT + 2) + 10
    return Bars(tuple(drawn), left, left + BAR_WIDTH + 60, y)


def _unit(value: float | None) -> float:
    if value is None or not math.isfinite(value):
        return 0.0
    return min(1.0, max(0.0, value))


# --- latency --------------------------------------------------------------------------------------

HISTOGRAM_WIDTH = 480
HISTOGRAM_HEIGHT = 120
MIN_BINS = 5
MAX_BINS = 24


@dataclass(frozen=True)
class Bin:
    low: float
    high: float
    count: int
    x: float
    y: float
    width: float
    height: float
    before: int | None = None
    """The baseline's count in this bin, when the histogram has a baseline."""
    before_y: float = 0.0


@dataclass(frozen=True)
class Marker:
    name: str
    value: float
    x: float
    before: bool = False


@dataclass(frozen=True)
class Histogram:
    bins: tuple[Bin, ...]
    markers: tuple[Marker, ...]
    low: float
    high: float
    count: int
    peak: int
    before_count: int | None = None
    """Latencies the baseline measured, when it is drawn too (as an outline)."""
    left: float = 36
    bottom: float = HISTOGRAM_HEIGHT + 8

    @property
    def width(self) -> float:
        return self.left + HISTOGRAM_WIDTH + 12

    @property
    def height(self) -> float:
        return self.bottom + 30

    @property
    def outline(self) -> str:
        """The baseline's bins as one SVG path: a step line over the bins."""
        if self.before_count is None:
            return ""
        steps = [f"M{self.left:.1f} {self.bottom:.1f}"]
        for drawn in self.bins:
            steps.append(f"V{drawn.before_y:.1f}H{drawn.x + drawn.width + 1:.1f}")
        steps.append(f"V{self.bottom:.1f}")
        return "".join(steps)


def _nice_step(span: float, bins: int) -> float:
    """A bin width of 1, 2 or 5 times a power of ten, covering ``span`` in ``bins`` or fewer."""
    raw = span / bins
    power = 10.0 ** math.floor(math.log10(raw))
    return next(step * power for step in (1.0, 2.0, 5.0, 10.0) if step * power >= raw)


def _measured(latencies: Sequence[float] | None) -> list[float]:
    return sorted(value for value in latencies or () if math.isfinite(value) and value >= 0)


def histogram(
    latencies: Sequence[float], before: Sequence[float] | None = None
) -> Histogram | None:
    """Latencies in milliseconds, binned over their range (bins 1, 2 or 5 times a power of
    ten wide), with the median and the 95th percentile (nearest rank); ``before``, the
    baseline's, binned alike over the range of both. None when nothing was measured."""
    measured, then = _measured(latencies), _measured(before)
    both = measured + then
    if not both:
        return None
    least, most = min(both), max(both)
    bins = min(MAX_BINS, max(MIN_BINS, math.ceil(2 * math.sqrt(len(measured) or len(then)))))
    step = _nice_step(most - least, bins) if most > least else max(1.0, most / 10 or 1.0)
    low = math.floor(least / step) * step
    count = max(1, math.ceil((most - low) / step + 1e-9))
    if low + count * step <= most:
        count += 1

    def tally(values: list[float]) -> list[int]:
        counts = [0] * count
        for value in values:
            counts[min(count - 1, int((value - low) / step))] += 1
        return counts

    now, earlier = tally(measured), tally(then)
    peak = max(1, *now, *earlier) if before is not None else max(1, *now)
    high = low + count * step
    width = HISTOGRAM_WIDTH / count

    def top(number: int) -> float:
        return 8 + HISTOGRAM_HEIGHT * (1 - number / peak)

    drawn = tuple(
        Bin(
            low + i * step,
            low + (i + 1) * step,
            now[i],
            36 + i * width,
            top(now[i]),
            max(1.0, width - 1),
            HISTOGRAM_HEIGHT * now[i] / peak,
            None if before is None else earlier[i],
            top(earlier[i]),
        )
        for i in range(count)
    )
    markers = []
    sides = [(measured, False)] + ([(then, True)] if before is not None else [])
    for values, baseline in sides:
        for name, rank in (("p50", 50), ("p95", 95)):
            value = nearest_rank(values, rank)
            if value is not None:
                x = 36 + HISTOGRAM_WIDTH * (value - low) / (high - low)
                markers.append(Marker(name, value, x, baseline))
    return Histogram(
        drawn, tuple(markers), low, high, len(measured), peak, None if before is None else len(then)
    )

"""Server-rendered SVG charts of the temperature rollups: numbers and times only, no stored text.

Each chart spans its whole window (24 hours, 30 days, 12 months), one slot per bucket, so a
gap in the readings shows as a gap. The geometry is computed on the rollups' integers
(hundredths of a degree); a float appears only in the labels. Each bucket is a focusable
group whose ``<title>`` gives its time, mean, min, max and sample count, on hover or focus.
The SVG has a viewBox and no fixed size, so it scales with its card.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from html import escape

from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT = 600, 220
LEFT, RIGHT, TOP, BOTTOM = 52, 10, 12, 40  # room for the axis labels
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
STEPS = (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)  # tick steps, in hundredths of a degree
MIN_FILLED = 2  # buckets with readings a chart needs before it draws anything


@dataclass(frozen=True)
class Window:
    """How one chart names its buckets: the tooltip's time, the axis labels, every how many slots."""

    title: str
    unit: str  # what a bucket is, plural: "hours"
    axis: str  # the x axis title
    when: str  # strftime of a bucket in its tooltip
    tick: str  # strftime of an x axis label
    tick_every: int


HOURS = Window("Last 24 hours: hourly mean, min and max", "hours", "hour (UTC)", "%Y-%m-%d %H:00", "%H:00", 4)
DAYS = Window("Last 30 days: daily mean, min and max", "days", "day (UTC)", "%a %Y-%m-%d", "%b %d", 5)
MONTHS = Window("Last 12 months: monthly mean, min and max", "months", "month", "%B %Y", "%b %y", 2)


@dataclass(frozen=True)
class Chart:
    title: str
    unit: str
    slots: int  # buckets in the window
    filled: int  # buckets with readings
    svg: SafeString = mark_safe("")
    low: int = 0  # the lowest min, in hundredths
    high: int = 0  # the highest max, in hundredths

    @property
    def empty(self) -> bool:
        return self.filled < MIN_FILLED

    @property
    def empty_text(self) -> str:
        if not self.filled:
            return f"No readings in these {self.slots} {self.unit} yet."
        return f"Only {self.filled} of these {self.slots} {self.unit} has readings so far: a chart needs {MIN_FILLED}."


def _degrees(centi: int, step: int) -> str:
    return f"{centi / 100:.{0 if step % 100 == 0 else 1 if step % 10 == 0 else 2}f}"


def _ticks(low: int, high: int) -> tuple[int, int, int]:
    """(bottom, top, step) of the y axis, in hundredths: round numbers around the data, 2 to 5 steps."""
    span = max(high - low, 1)
    step = next((s for s in STEPS if span / s <= 5), STEPS[-1])
    bottom, top = (low // step) * step, -((-high) // step) * step
    if top == bottom:
        top += step
    return bottom, top, step


def rollup_chart(rollups, slots: list[datetime], window: Window) -> Chart:
    """One slot per bucket of ``slots``: the min–max range as a bar, the mean as a dot, the means
    joined by a line that breaks where a bucket has no readings. The same rollups in the same
    window draw the same chart: it is drawn once, kept for the next views until a reading changes
    a rollup it shows."""
    return _drawn(tuple(rollups), tuple(slots), window)


@lru_cache(maxsize=64)
def _drawn(rollups: tuple, slots: tuple, window: Window) -> Chart:
    index = {slot: i for i, slot in enumerate(slots)}
    placed = [(index[r.start], r) for r in rollups if r.start in index]
    chart = Chart(window.title, window.unit, len(slots), len(placed))
    if chart.empty:
        return chart
    low, high = min(r.min for _, r in placed), max(r.max for _, r in placed)
    bottom, top, step = _ticks(low, high)
    span, slot_w = top - bottom, PLOT_W / len(slots)

    def y(centi: float) -> float:
        return round(TOP + (top - centi) * PLOT_H / span, 1)

    def x(i: int) -> float:
        return round(LEFT + (i + 0.5) * slot_w, 1)

    bar_w = round(max(1.5, slot_w * 0.55), 1)
    out = [
        f'<svg class="chart-svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="group" '
        f'aria-label="{escape(window.title)}, in degrees Celsius">'
    ]
    for tick in range(bottom, top + 1, step):
        out.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick)}" y2="{y(tick)}"/>'
            f'<text class="axis y" x="{LEFT - 6}" y="{y(tick) + 4}">{_degrees(tick, step)}</text>'
        )
    middle = TOP + PLOT_H / 2
    out.append(f'<text class="axis-title" x="12" y="{middle}" transform="rotate(-90 12 {middle})">°C</text>')
    for i in range((len(slots) - 1) % window.tick_every, len(slots), window.tick_every):  # the newest is labelled
        tick = slots[i].strftime(window.tick)
        out.append(f'<text class="axis x" x="{x(i)}" y="{HEIGHT - BOTTOM + 16}">{tick}</text>')
    out.append(f'<text class="axis-title" x="{LEFT + PLOT_W / 2}" y="{HEIGHT - 4}">{escape(window.axis)}</text>')
    line, last = [], None
    for i, r in placed:
        mean = r.sum / r.count  # hundredths, for the dot; the label rounds it
        line.append(f"{'L' if last == i - 1 else 'M'}{x(i)} {y(mean)}")
        last = i
    out.append(f'<path class="mean-line" d="{" ".join(line)}"/>')
    for i, r in placed:
        mean = r.sum / r.count
        label = (
            f"{r.start.strftime(window.when)}: mean {mean / 100:.2f} °C, "
            f"min {r.min / 100:.2f} °C, max {r.max / 100:.2f} °C, {r.count:,} samples"
        )
        height = max(round(y(r.min) - y(r.max), 1), 1.0)
        out.append(
            f'<g class="bucket" tabindex="0" role="img" aria-label="{label}"><title>{label}</title>'
            f'<rect class="range" x="{round(x(i) - bar_w / 2, 1)}" y="{y(r.max)}" width="{bar_w}" height="{height}"/>'
            f'<circle class="mean" cx="{x(i)}" cy="{y(mean)}" r="3"/></g>'
        )
    out.append("</svg>")
    svg = mark_safe("".join(out))  # noqa: S308  (numbers, times and fixed words; the titles are escaped)
    return Chart(window.title, window.unit, len(slots), len(placed), svg, low, high)


def location_charts(sensor) -> list[Chart]:
    """The location page's three charts from its ``SensorCharts``: 24 hours, 30 days, 12 months."""
    return [
        rollup_chart(sensor.hours, sensor.hour_slots, HOURS),
        rollup_chart(sensor.days, sensor.day_slots, DAYS),
        rollup_chart(sensor.months, sensor.month_slots, MONTHS),
    ]


def temperature_html(sensor, charts: list[Chart]) -> SafeString:
    """The temperature card's body when a sensor has readings: the latest reading and the three
    charts with their captions, built here in one piece rather than by a template node per number.
    The reading is a number and a UTC time; the titles and captions are fixed words and numbers."""
    at = sensor.latest_at.astimezone(UTC)
    out = [
        f"<p>Latest reading: <strong>{sensor.latest_value:.2f} °C</strong> at "
        f'<time datetime="{at.isoformat()}">{at:%Y-%m-%d %H:%M:%S} UTC</time>. '
        f"The charts read {sensor.keys_read} keys: one per bucket.</p>\n  "
    ]
    for chart in charts:
        out.append(f"<h3>{escape(chart.title)}</h3>")
        if chart.empty:
            out.append(f'<p class="muted chart-empty">{escape(chart.empty_text)}</p>')
            continue
        out.append(
            f'\n<figure class="chart">\n  {chart.svg}\n  <figcaption class="hint">{chart.filled} of {chart.slots} '
            f"{escape(chart.unit)} with readings · bars from min to max, dots at the mean; hover or focus a bar "
            "for its values.</figcaption>\n</figure>\n"
        )
    return mark_safe("".join(out))  # noqa: S308  (numbers, a time and fixed words, escaped; the SVGs are safe)

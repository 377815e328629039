"""The geometry of the SVG charts of the temperature rollups: numbers and times only, no stored text.

Each chart spans its whole window (24 hours, 30 days, 12 months), one slot per bucket, so a
gap in the readings shows as a gap. The window ends at the sensor's newest reading, so each
title names the period it shows from the buckets' own times, never "the last 24 hours" of a feed
that stopped long ago. The geometry is computed on the rollups' integers (hundredths of a
degree); a float appears only in the labels. Each bucket is a group whose ``<title>`` and
accessible name give its time, mean, min, max and sample count; a tap, a click or a hover shows
them below the chart (``static/js/app.js``), and the same values come as a table behind one
button, so the keyboard meets one tab stop per chart, not one per bar. The SVG has a viewBox and
no fixed size, so it scales with its card; its text grows on a narrow card (``app.css``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cached_property, lru_cache
from typing import ClassVar

from django.template.loader import render_to_string

WIDTH, HEIGHT = 600, 220
LEFT, RIGHT, TOP, BOTTOM = 52, 10, 12, 40  # room for the axis labels
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
STEPS = (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)  # tick steps, in hundredths of a degree
MIN_FILLED = 2  # buckets with readings a chart needs before it draws anything


@dataclass(frozen=True)
class Window:
    """How one chart names its buckets: the tooltip's time, the axis labels, every how many slots,
    and its title's period (``period`` of the first and the last bucket, then ``zone``)."""

    what: str  # the title before its period
    unit: str  # what a bucket is, plural: "hours"
    axis: str  # the x axis title
    when: str  # strftime of a bucket in its tooltip
    tick: str  # strftime of an x axis label
    tick_every: int
    period: str  # strftime of the title's first and last bucket
    zone: str = ""

    def title(self, slots) -> str:
        """The title with the window's span: "Hourly mean, min and max, 2026-01-04 02:00 to 2026-01-05 01:00 UTC"."""
        if not slots:
            return self.what
        first, last = slots[0].strftime(self.period), slots[-1].strftime(self.period)
        return f"{self.what}, {first} to {last}{self.zone}"


HOURS = Window(
    "Hourly mean, min and max", "hours", "hour (UTC)", "%Y-%m-%d %H:00", "%H:00", 4, "%Y-%m-%d %H:00", " UTC"
)
DAYS = Window("Daily mean, min and max", "days", "day (UTC)", "%a %Y-%m-%d", "%b %d", 5, "%Y-%m-%d", " (UTC days)")
MONTHS = Window("Monthly mean, min and max", "months", "month", "%B %Y", "%b %y", 2, "%B %Y")


@dataclass(frozen=True)
class Tick:
    """An axis label at ``at`` (a y for the value axis, an x for the time axis); ``label_at`` is
    where the value axis writes its number, beside its grid line."""

    at: float
    text: str
    label_at: float = 0


@dataclass(frozen=True)
class Bucket:
    """One slot with readings: the min–max bar (x, y, width, height), the mean's dot (cx, cy), the
    whole slot's column a tap hits (hit_x, hit_width), the sentence its tooltip, its accessible name
    and the readout give, and its values for the chart's table."""

    label: str
    x: float
    y: float
    width: float
    height: float
    cx: float
    cy: float
    hit_x: float = 0
    hit_width: float = 0
    when: str = ""
    mean: str = ""
    low: str = ""
    high: str = ""
    samples: str = ""


@dataclass(frozen=True)
class Chart:
    """One chart's geometry, drawn by ``orgchart/location_detail.html``."""

    # The frame every chart shares, for the template.
    width: ClassVar[int] = WIDTH
    height: ClassVar[int] = HEIGHT
    left: ClassVar[int] = LEFT
    grid_right: ClassVar[int] = WIDTH - RIGHT
    value_label_x: ClassVar[int] = LEFT - 6
    value_title_y: ClassVar[float] = TOP + PLOT_H / 2
    time_label_y: ClassVar[int] = HEIGHT - BOTTOM + 6  # the labels hang from it, whatever their size
    plot_top: ClassVar[int] = TOP
    plot_height: ClassVar[int] = PLOT_H
    time_title_x: ClassVar[float] = LEFT + PLOT_W / 2
    time_title_y: ClassVar[int] = HEIGHT - 4

    title: str
    unit: str
    axis: str  # the time axis's title
    slots: int  # buckets in the window
    filled: int  # buckets with readings
    low: int = 0  # the lowest min, in hundredths
    high: int = 0  # the highest max, in hundredths
    value_ticks: tuple[Tick, ...] = ()
    time_ticks: tuple[Tick, ...] = ()
    mean_path: str = ""  # the means joined, broken where a bucket has no readings
    buckets: tuple[Bucket, ...] = ()

    @cached_property
    def svg(self) -> str:
        """The chart drawn by ``orgchart/chart.html`` (the SVG, its readout and its values' table):
        once per chart, which ``rollup_chart`` keeps until a reading changes a rollup it shows."""
        return render_to_string("orgchart/chart.html", {"chart": self})

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
    chart = Chart(window.title(slots), window.unit, window.axis, len(slots), len(placed))
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
    value_ticks = tuple(Tick(y(t), _degrees(t, step), y(t) + 4) for t in range(bottom, top + 1, step))
    newest_labelled = range((len(slots) - 1) % window.tick_every, len(slots), window.tick_every)
    time_ticks = tuple(Tick(x(i), slots[i].strftime(window.tick)) for i in newest_labelled)
    line, last = [], None
    for i, r in placed:
        mean = r.sum / r.count  # hundredths, for the dot; the label rounds it
        line.append(f"{'L' if last == i - 1 else 'M'}{x(i)} {y(mean)}")
        last = i
    buckets = []
    for i, r in placed:
        mean = r.sum / r.count
        when, values = r.start.strftime(window.when), (f"{mean / 100:.2f}", f"{r.min / 100:.2f}", f"{r.max / 100:.2f}")
        label = f"{when}: mean {values[0]} °C, min {values[1]} °C, max {values[2]} °C, {r.count:,} samples"
        height = max(round(y(r.min) - y(r.max), 1), 1.0)
        hit_x = round(LEFT + i * slot_w, 1)
        buckets.append(
            Bucket(
                label,
                round(x(i) - bar_w / 2, 1),
                y(r.max),
                bar_w,
                height,
                x(i),
                y(mean),
                hit_x,
                round(slot_w, 1),
                when,
                *values,
                f"{r.count:,}",
            )  # fmt: skip
        )
    return replace(
        chart, low=low, high=high, value_ticks=value_ticks, time_ticks=time_ticks,
        mean_path=" ".join(line), buckets=tuple(buckets),
    )  # fmt: skip


def location_charts(sensor) -> list[Chart]:
    """The location page's three charts from its ``SensorCharts``: 24 hours, 30 days, 12 months."""
    return [
        rollup_chart(sensor.hours, sensor.hour_slots, HOURS),
        rollup_chart(sensor.days, sensor.day_slots, DAYS),
        rollup_chart(sensor.months, sensor.month_slots, MONTHS),
    ]


@dataclass(frozen=True)
class Temperature:
    """The temperature card of a location with readings: the latest reading, in UTC, and its charts."""

    value: float
    at: datetime
    keys_read: int
    charts: list[Chart]

    @property
    def value_text(self) -> str:
        return f"{self.value:.2f}"

    @property
    def at_text(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S}"


def temperature(sensor) -> Temperature | None:
    """The temperature card's content from a ``SensorCharts``, or None before the first reading."""
    if not sensor.latest_at:
        return None
    return Temperature(sensor.latest_value, sensor.latest_at.astimezone(UTC), sensor.keys_read, location_charts(sensor))

"""Server-rendered SVG geometry for the temperature charts: numbers only, no stored text.

Each chart spans its whole window (24 hours, 30 days, 12 months), so a gap in the readings
shows as a gap, not as a stretched line."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

WIDTH, HEIGHT, PAD = 720, 180, 24


@dataclass
class Chart:
    path: str = ""  # min-max bars or the raw envelope, an SVG path
    dots: str = ""  # one dot per bucket mean, an SVG path of zero-length segments
    line: str = ""  # the means joined, a polyline's points
    low: float = 0.0
    high: float = 0.0
    start: str = ""
    end: str = ""
    points: int = 0

    @property
    def empty(self) -> bool:
        return not self.points


def _scale(low: float, high: float):
    span = (high - low) or 1.0

    def y(value: float) -> float:
        return round(PAD + (high - value) / span * (HEIGHT - 2 * PAD), 1)

    return y


def raw_chart(samples, start: datetime, end: datetime) -> Chart:
    """Every raw sample of the window, drawn as a min-max envelope per pixel column."""
    if not samples:
        return Chart()
    t0, span = start.timestamp(), (end.timestamp() - start.timestamp()) or 1
    columns: dict[int, tuple[float, float]] = {}
    for at, value in samples:
        x = min(WIDTH - 1, max(0, int((at.timestamp() - t0) / span * (WIDTH - 1))))
        lo, hi = columns.get(x, (value, value))
        columns[x] = (min(lo, value), max(hi, value))
    low = min(v for _, v in samples)
    high = max(v for _, v in samples)
    y = _scale(low, high)
    path = " ".join(f"M{x} {y(hi)}V{max(y(lo), y(hi) + 0.8)}" for x, (lo, hi) in sorted(columns.items()))
    fmt = "%Y-%m-%d %H:%M"
    return Chart(path, "", "", low, high, start.strftime(fmt), end.strftime(fmt), len(samples))


def rollup_chart(rollups, slots: list[datetime], bars: bool = True, fmt: str = "%Y-%m-%d") -> Chart:
    """One slot per bucket of the window: the mean as a dot (joined by a line), and with ``bars``
    the min to max range as a bar. Buckets with no rollup stay empty."""
    if not rollups:
        return Chart()
    low = min(r.low if bars else r.mean for r in rollups)
    high = max(r.high if bars else r.mean for r in rollups)
    y = _scale(low, high)
    step = WIDTH / len(slots)
    x_of = {slot: round(step * i + step / 2, 1) for i, slot in enumerate(slots)}
    placed = [(x_of[r.start], r) for r in rollups if r.start in x_of]
    line = " ".join(f"{x},{y(r.mean)}" for x, r in placed)
    dots = " ".join(f"M{x} {y(r.mean)}h0.01" for x, r in placed)
    path = " ".join(f"M{x} {y(r.high)}V{y(r.low) + 0.8}" for x, r in placed) if bars else ""
    return Chart(path, dots, line, low, high, slots[0].strftime(fmt), slots[-1].strftime(fmt), len(placed))

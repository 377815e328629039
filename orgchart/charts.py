"""Server-rendered SVG geometry for the temperature charts: numbers only, no stored text."""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT, PAD = 720, 180, 24


@dataclass
class Chart:
    path: str = ""  # envelope or bars, an SVG path
    line: str = ""  # a polyline's points
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


def raw_chart(samples) -> Chart:
    """Every raw sample of the window, drawn as a min-max envelope per pixel column."""
    if not samples:
        return Chart()
    t0, t1 = samples[0][0].timestamp(), samples[-1][0].timestamp()
    columns: dict[int, tuple[float, float]] = {}
    for at, value in samples:
        x = int((at.timestamp() - t0) / ((t1 - t0) or 1) * (WIDTH - 1))
        lo, hi = columns.get(x, (value, value))
        columns[x] = (min(lo, value), max(hi, value))
    low = min(v for _, v in samples)
    high = max(v for _, v in samples)
    y = _scale(low, high)
    path = " ".join(f"M{x} {y(hi)}V{max(y(lo), y(hi) + 0.8)}" for x, (lo, hi) in sorted(columns.items()))
    fmt = "%Y-%m-%d %H:%M"
    return Chart(path, "", low, high, samples[0][0].strftime(fmt), samples[-1][0].strftime(fmt), len(samples))


def rollup_chart(rollups, bars: bool = True, fmt: str = "%Y-%m-%d") -> Chart:
    """Mean as a line; min to max as a bar per bucket."""
    if not rollups:
        return Chart()
    low = min(r.low for r in rollups)
    high = max(r.high for r in rollups) if bars else max(r.mean for r in rollups)
    if not bars:
        low = min(r.mean for r in rollups)
    y = _scale(low, high)
    step = WIDTH / len(rollups)
    xs = [round(step * i + step / 2, 1) for i in range(len(rollups))]
    line = " ".join(f"{x},{y(r.mean)}" for x, r in zip(xs, rollups))
    path = " ".join(f"M{x} {y(r.high)}V{y(r.low) + 0.8}" for x, r in zip(xs, rollups)) if bars else ""
    return Chart(path, line, low, high, rollups[0].start.strftime(fmt), rollups[-1].start.strftime(fmt), len(rollups))

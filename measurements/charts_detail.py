"""Server-rendered SVG strip plot of one measurement: each trial's cycles per call (and its
per-batch samples where stored) on one linear axis, with the median and its interval.

A pure function of values from `measurements.selectors.pages.measurement`; every number written
on the chart comes from the one formatter. No JavaScript, no external resources.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from measurements import formatting as fmt
from measurements.selectors.pages.measurement import MeasurementPage

WIDTH = 640
LEFT = 70
RIGHT = 20
ROW = 22
TOP = 30
AXIS = 40
TICKS = 5
#: At most this many samples are drawn per trial (evenly spaced in sorted order).
MAX_SAMPLES_DRAWN = 400


def _thin(values: list[float]) -> list[float]:
    if len(values) <= MAX_SAMPLES_DRAWN:
        return values
    ordered = sorted(values)
    step = (len(ordered) - 1) / (MAX_SAMPLES_DRAWN - 1)
    return [ordered[round(i * step)] for i in range(MAX_SAMPLES_DRAWN)]


def strip_plot(page: MeasurementPage) -> str:
    """The chart for `page`, or "" where it has no trials."""
    rows = [t.raw for t in page.trials if t.raw["cycles_per_call"] is not None]
    if not rows:
        return ""
    values = [r["cycles_per_call"] for r in rows] + [v for r in rows for v in r["sample_values"]]
    if page.interval:
        values += [page.interval.low, page.interval.high]
    low, high = min(values), max(values)
    pad = (high - low) * 0.05 or abs(high) * 0.01 or 1.0
    low, high = low - pad, high + pad
    plot = WIDTH - LEFT - RIGHT
    height = TOP + ROW * len(rows) + AXIS

    def x(v: float) -> float:
        return LEFT + (v - low) / (high - low) * plot

    title = f"Cycles per call of each trial — {page.title}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="system-ui, sans-serif" '
        f'font-size="11"><title>{escape(title)}</title>',
    ]
    bottom = TOP + ROW * len(rows)
    if page.interval:
        band_x, band_w = (
            x(page.interval.low),
            max(1.0, x(page.interval.high) - x(page.interval.low)),
        )
        out.append(
            f'<rect x="{band_x:.1f}" y="{TOP - 8}" width="{band_w:.1f}" '
            f'height="{bottom - TOP + 8}" '
            f'fill="#1f5fbf" fill-opacity="0.12"><title>interval {escape(page.interval.text)}'
            "</title></rect>"
        )
        mx = x(page.interval.median)
        out.append(
            f'<line x1="{mx:.1f}" y1="{TOP - 8}" x2="{mx:.1f}" y2="{bottom}" stroke="#1f5fbf" '
            'stroke-width="2"/>'
        )
        out.append(
            f'<text x="{mx:.1f}" y="{TOP - 12}" text-anchor="middle" fill="#1f5fbf">median '
            f"{escape(fmt.format_cycles(page.interval.median))}</text>"
        )
    for i, row in enumerate(rows):
        y = TOP + ROW * i + ROW / 2
        out.append(
            f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">trial {row["index"]}</text>'
        )
        for v in _thin(row["sample_values"]):
            out.append(
                f'<circle cx="{x(v):.1f}" cy="{y:.1f}" r="1.5" fill="#5b6577" fill-opacity="0.5"/>'
            )
        colour = "#a4480b" if row["disturbed"] else "#1d2330"
        value = fmt.format_cycles(row["cycles_per_call"])
        out.append(
            f'<circle cx="{x(row["cycles_per_call"]):.1f}" cy="{y:.1f}" r="4.5" fill="{colour}">'
            f"<title>trial {row['index']}: {escape(value)} cycles per call</title></circle>"
        )
    # Narrow ranges are labelled in whole cycles, so that neighbouring ticks differ.
    narrow = (high - low) < 0.05 * abs(high)
    for k in range(TICKS):
        v = low + (high - low) * k / (TICKS - 1)
        label = fmt.format_int(round(v)) if narrow else fmt.format_cycles(v)
        out.append(
            f'<line x1="{x(v):.1f}" y1="{bottom}" x2="{x(v):.1f}" y2="{bottom + 4}" '
            'stroke="#5b6577"/>'
            f'<text x="{x(v):.1f}" y="{bottom + 16}" text-anchor="middle" fill="#5b6577">'
            f"{escape(label)}</text>"
        )
    out.append(
        f'<text x="{LEFT + plot / 2:.1f}" y="{bottom + 32}" text-anchor="middle" fill="#5b6577">'
        "cycles per call (linear scale)</text></svg>"
    )
    return "".join(out)

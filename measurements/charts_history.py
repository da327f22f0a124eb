"""A small server-rendered SVG of one series' history: one point per campaign with its interval.

Pure function of a `HistorySeries`; figures on the chart come from the one formatter.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from measurements import formatting as fmt
from measurements.selectors.history import HistorySeries

WIDTH = 320
HEIGHT = 90
PAD_X = 34
PAD_TOP = 10
PAD_BOTTOM = 18
CHANGED = "#dc2626"
STEADY = "#1f5fbf"


def _bounds(series: HistorySeries) -> tuple[float, float] | None:
    values = [
        v
        for p in series.points
        for v in (p.cycles, p.next_low, p.next_high)
        if v is not None and v >= 0
    ]
    if not values:
        return None
    low, high = min(values), max(values)
    pad = (high - low) * 0.1 or high * 0.05 or 1.0
    return low - pad, high + pad


def history_chart(series: HistorySeries) -> str:
    """Points (campaigns, oldest left) with next-campaign whiskers; flagged changes in red."""
    bounds = _bounds(series)
    if bounds is None:
        return ""
    low, high = bounds
    count = len(series.points)
    step = (WIDTH - 2 * PAD_X) / max(1, count - 1)

    def y_of(value: float) -> float:
        return PAD_TOP + (high - value) / (high - low) * (HEIGHT - PAD_TOP - PAD_BOTTOM)

    title = f"{series.instance_label} {series.operation}: cycles per campaign"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart history-chart" role="img" '
        f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'font-family="system-ui, sans-serif" font-size="10">',
        f"<title>{escape(title)}</title>",
        f'<text x="2" y="{PAD_TOP + 4}" fill="#5b6577">{escape(fmt.format_cycles(high))}</text>',
        f'<text x="2" y="{HEIGHT - PAD_BOTTOM}" fill="#5b6577">'
        f"{escape(fmt.format_cycles(low))}</text>",
    ]
    for i, point in enumerate(series.points):
        if point.cycles is None:
            continue
        x = PAD_X + i * step if count > 1 else WIDTH / 2
        colour = CHANGED if point.change else STEADY
        # Whiskers: where the next campaign is expected from this campaign's figure (the
        # regression flag, in red, applies the combined rule of measurements.selectors.history).
        if point.next_bounds is not None:
            next_low, next_high = point.next_bounds
            out.append(
                f'<line x1="{x:.1f}" y1="{y_of(next_high):.1f}" x2="{x:.1f}" '
                f'y2="{y_of(next_low):.1f}" stroke="{colour}" stroke-width="1.5"/>'
            )
        label = f"{point.campaign_key}: {fmt.format_cycles(point.cycles)}"
        out.append(
            f'<circle cx="{x:.1f}" cy="{y_of(point.cycles):.1f}" r="3.5" fill="{colour}">'
            f"<title>{escape(label)}</title></circle>"
        )
    out.append(
        f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT - 4}" text-anchor="middle" fill="#5b6577">'
        "campaigns, oldest first</text></svg>"
    )
    return "".join(out)

"""Server-rendered SVG charts (no JavaScript, no external resources).

Pure functions: they take values from the selectors (`ChartData`) and return an SVG string.
Every figure written on a chart (bar labels, axis ticks) comes from the one formatter.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from xml.sax.saxutils import escape, quoteattr

from measurements import formatting as fmt
from measurements.selectors.pages.cells import ChartData

PALETTE = ("#1f5fbf", "#d97706", "#059669", "#9333ea", "#dc2626", "#0891b2", "#65a30d", "#db2777")

BAR_HEIGHT = 14
BAR_GAP = 3
GROUP_GAP = 10
LABEL_WIDTH = 190
SERIES_WIDTH = 70
PLOT_WIDTH = 460
VALUE_WIDTH = 80
TOP = 34
AXIS_HEIGHT = 28
CHAR_WIDTH = 6.6


def log_decades(values: list[float]) -> tuple[int, int]:
    """The whole decades (powers of ten) spanning positive `values`, at least one wide."""
    low = math.floor(math.log10(min(values)))
    high = math.ceil(math.log10(max(values)))
    if high == low:
        high = low + 1
    return low, high


def _clip(label: str, width: float) -> str:
    limit = max(4, int(width / CHAR_WIDTH))
    return label if len(label) <= limit else label[: limit - 1] + "…"


def log_bar_chart(
    data: ChartData, *, value_format: Callable[[float | None], str] = fmt.format_cycles
) -> str:
    """Horizontal grouped bars on a log scale; one group per `ChartGroup`, one colour per series.

    Missing values are drawn as no bar with the missing mark. Returns "" when nothing to draw.
    """
    values = [b.value for g in data.groups for b in g.bars if b.value is not None and b.value > 0]
    if not values:
        return ""
    low, high = log_decades(values)
    colour = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(data.series)}
    plot_x = LABEL_WIDTH + SERIES_WIDTH

    def x_of(value: float) -> float:
        return plot_x + (math.log10(value) - low) / (high - low) * PLOT_WIDTH

    rows_height = sum(
        len(g.bars) * (BAR_HEIGHT + BAR_GAP) - BAR_GAP + GROUP_GAP for g in data.groups
    )
    height = TOP + rows_height + AXIS_HEIGHT
    width = plot_x + PLOT_WIDTH + VALUE_WIDTH
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'font-family="system-ui, sans-serif" font-size="11">',
        f"<title>{escape(data.title)}</title>",
        f'<text x="0" y="14" font-size="13" font-weight="600">{escape(data.title)}</text>',
    ]
    # Grid lines and tick labels at every power of ten.
    axis_y = TOP + rows_height
    for exponent in range(low, high + 1):
        x = plot_x + (exponent - low) / (high - low) * PLOT_WIDTH
        out.append(
            f'<line x1="{x:.1f}" y1="{TOP - 6}" x2="{x:.1f}" y2="{axis_y}" '
            f'stroke="#d9dee7" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{axis_y + 14}" text-anchor="middle" fill="#5b6577">'
            f"{escape(value_format(10.0**exponent))}</text>"
        )
    out.append(
        f'<text x="{plot_x + PLOT_WIDTH / 2:.1f}" y="{axis_y + 26}" text-anchor="middle" '
        f'fill="#5b6577">cycles (log scale)</text>'
    )
    y = TOP
    for group in data.groups:
        group_height = len(group.bars) * (BAR_HEIGHT + BAR_GAP) - BAR_GAP
        out.append(
            f'<text x="0" y="{y + group_height / 2 + 4:.1f}" font-weight="600">'
            f"{escape(_clip(group.label, LABEL_WIDTH - 8))}</text>"
        )
        for bar in group.bars:
            label = value_format(bar.value)
            out.append(
                f'<text x="{plot_x - 6}" y="{y + BAR_HEIGHT - 3}" text-anchor="end" '
                f'fill="#5b6577">{escape(_clip(bar.series, SERIES_WIDTH - 6))}</text>'
            )
            if bar.value is not None and bar.value > 0:
                end = x_of(bar.value)
                bar_width = max(1.0, end - plot_x)
                out.append(
                    f'<rect x="{plot_x}" y="{y}" width="{bar_width:.1f}" height="{BAR_HEIGHT}" '
                    f"fill={quoteattr(colour.get(bar.series, PALETTE[0]))}>"
                    f"<title>{escape(f'{group.label} {bar.series}: {label}')}</title></rect>"
                )
                text_x = plot_x + bar_width + 4
            else:
                text_x = plot_x + 4
            out.append(f'<text x="{text_x:.1f}" y="{y + BAR_HEIGHT - 3}">{escape(label)}</text>')
            y += BAR_HEIGHT + BAR_GAP
        y += GROUP_GAP - BAR_GAP
    out.append("</svg>")
    return "".join(out)

"""Server-rendered SVG charts of the system-level pages (no JavaScript, no external assets).

Kept apart from `measurements.charts` (the candidate-page charts) so both can grow without
conflicts. Every figure written into a chart goes through the one formatter.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

from django.utils.html import escape

from measurements import formatting as fmt
from measurements.charts import log_decades

if TYPE_CHECKING:
    from measurements.selectors.pages.summary import SystemSummary

STATUS_COLOURS = {
    "PASS": "#2f7d4f",
    "MISMATCH": "#d9822b",
    "NOKAT": "#8a94a6",
    "CRYPTOFAIL": "#c0392b",
    "OVERFLOW": "#8e44ad",
    "TIMEOUT": "#a0522d",
    "CRASH": "#7b241c",
    "LOADFAIL": "#5d6d7e",
    "BUILDFAIL": "#34495e",
    "NOLOG": "#b3b6b7",
    "PENDING": "#d5d8dc",
}
OTHER_COLOUR = "#aab2bd"
PASS_DOT = "#1f5fbf"
FLAGGED_DOT = "#d9822b"
FONT = 'font-family="system-ui, sans-serif" font-size="12"'


def _svg_open(width: int, height: int, title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
        f"<title>{escape(title)}</title>"
    )


Point = tuple[float, str, bool]  # (mean cycles, tooltip, KAT not PASS)


def _cycle_rows(summary: SystemSummary) -> list[tuple[str, list[Point]]]:
    """One row per (section, operation) with a dot per measured instance, in page order."""
    rows: list[tuple[str, list[Point]]] = []
    for section in summary.sections:
        columns: dict[str, list[Point]] = {}
        for row in section.rows:
            for op, cycles in row.raw_cycles.items():
                if cycles is None or cycles <= 0:
                    continue
                tip = f"{row.submission_key} {row.label} {op}: {fmt.format_cycles(cycles)}"
                if row.kat_flag:
                    tip += f" ({row.kat_flag})"
                columns.setdefault(op, []).append((cycles, tip, bool(row.kat_flag)))
        rows += [(f"{section.spec.title}: {op}", points) for op, points in columns.items()]
    return rows


def summary_cycles_chart(summary: SystemSummary, width: int = 960) -> str:
    """Mean cycles of every measured instance, one row per (category, operation), log scale.

    Each dot is one instance (orange where its KAT is not PASS); the bar marks the median of
    the row. Returns "" where nothing has been measured.
    """
    rows = _cycle_rows(summary)
    if not rows:
        return ""
    values = [c for _, points in rows for c, _, _ in points]
    low, high = log_decades(values)
    left, right, top, row_h = 230, 40, 26, 28
    plot_w = width - left - right
    height = top + row_h * len(rows) + 34

    def x(value: float) -> float:
        return left + (math.log10(value) - low) / (high - low) * plot_w

    parts = [
        _svg_open(width, height, f"Mean cycles per operation, system {summary.system.key}"),
        f'<text x="{left}" y="16" {FONT} fill="#5b6577">mean cycles per call, log scale; '
        "one dot per instance, bar = median, orange = KAT not PASS</text>",
    ]
    axis_y = top + row_h * len(rows)
    for decade in range(low, high + 1):
        xd = x(10.0**decade)
        parts.append(
            f'<line x1="{xd:.1f}" y1="{top}" x2="{xd:.1f}" y2="{axis_y}" stroke="#d9dee7"/>'
            f'<text x="{xd:.1f}" y="{axis_y + 16}" {FONT} text-anchor="middle" '
            f'fill="#5b6577">{escape(fmt.format_cycles(10.0**decade))}</text>'
        )
    for index, (name, points) in enumerate(rows):
        cy = top + row_h * index + row_h / 2
        if index % 2 == 0:
            parts.append(
                f'<rect x="0" y="{top + row_h * index}" width="{width}" height="{row_h}" '
                'fill="#f5f7fa" opacity="0.6"/>'
            )
        parts.append(
            f'<text x="{left - 8}" y="{cy + 4:.1f}" {FONT} text-anchor="end" '
            f'fill="#1d2330">{escape(name)} ({len(points)})</text>'
        )
        ordered = sorted(c for c, _, _ in points)
        median = ordered[len(ordered) // 2]
        xm = x(median)
        parts.append(
            f'<line x1="{xm:.1f}" y1="{cy - 10:.1f}" x2="{xm:.1f}" y2="{cy + 10:.1f}" '
            f'stroke="#1d2330" stroke-width="2"><title>median {escape(fmt.format_cycles(median))}'
            "</title></line>"
        )
        for cycles, tip, flagged in points:
            colour = FLAGGED_DOT if flagged else PASS_DOT
            parts.append(
                f'<circle cx="{x(cycles):.1f}" cy="{cy:.1f}" r="4" fill="{colour}" '
                f'fill-opacity="0.55" stroke="{colour}"><title>{escape(tip)}</title></circle>'
            )
    parts.append(
        f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" stroke="#5b6577"/>'
    )
    parts.append("</svg>")
    return "".join(parts)


def kat_status_chart(counts: Mapping[str, Counter], width: int = 960) -> str:
    """One stacked horizontal bar per category: how many built instances have each KAT status.

    `counts` maps a category key (``kem``, ``sign``…) to a Counter of statuses. Returns "" when
    there is nothing to show.
    """
    from measurements.models import Category

    rows = [(cat, counter) for cat, counter in counts.items() if sum(counter.values())]
    if not rows:
        return ""
    statuses = sorted(
        {s for _, counter in rows for s in counter},
        key=lambda s: (s != "PASS", list(STATUS_COLOURS).index(s) if s in STATUS_COLOURS else 99),
    )
    left, right, top, row_h = 230, 20, 10, 26
    plot_w = width - left - right
    longest = max(sum(counter.values()) for _, counter in rows)
    legend_y = top + row_h * len(rows) + 18
    height = legend_y + 14
    parts = [_svg_open(width, height, "KAT status of the built instances per category")]
    for index, (cat, counter) in enumerate(rows):
        y = top + row_h * index
        label = Category(cat).label if cat in Category.values else cat
        total = sum(counter.values())
        parts.append(
            f'<text x="{left - 8}" y="{y + 17}" {FONT} text-anchor="end" fill="#1d2330">'
            f"{escape(label)} ({fmt.format_int(total)})</text>"
        )
        offset = float(left)
        for status in statuses:
            n = counter.get(status, 0)
            if not n:
                continue
            w = n / longest * plot_w
            colour = STATUS_COLOURS.get(status, OTHER_COLOUR)
            parts.append(
                f'<rect x="{offset:.1f}" y="{y + 4}" width="{w:.1f}" height="{row_h - 8}" '
                f'fill="{colour}"><title>{escape(label)}: {fmt.format_int(n)} {escape(status)}'
                "</title></rect>"
            )
            if w > 28:
                parts.append(
                    f'<text x="{offset + w / 2:.1f}" y="{y + 17}" {FONT} text-anchor="middle" '
                    f'fill="#fff">{fmt.format_int(n)}</text>'
                )
            offset += w
    x = float(left)
    for status in statuses:
        colour = STATUS_COLOURS.get(status, OTHER_COLOUR)
        parts.append(
            f'<rect x="{x:.1f}" y="{legend_y - 10}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{x + 14:.1f}" y="{legend_y}" {FONT} fill="#1d2330">{escape(status)}</text>'
        )
        x += 24 + 8 * len(status)
    parts.append("</svg>")
    return "".join(parts)

"""Server-rendered SVG charts of the rankings page (no JavaScript, no external resources).

`scatter_chart`: one point per candidate on log-log axes (cycles against bytes), each point
labelled with its candidate id and linked to the candidate's profile, so it is usable without
hovering. `lines_chart`: cycles per byte against message length for hash candidates. Tick labels
come from the one formatter, one style per axis.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from measurements import formatting as fmt
from measurements.charts import PALETTE, log_decades
from measurements.selectors.pages.rankings import RankingsPage

WIDTH, HEIGHT = 720, 420
LEFT, RIGHT, TOP, BOTTOM = 72, 24, 34, 48


@dataclass(frozen=True)
class Point:
    label: str
    x: float
    y: float
    href: str = ""


@dataclass(frozen=True)
class Series:
    label: str
    points: tuple[tuple[float, float], ...]
    href: str = ""


class _LogAxes:
    """Log-log axes over the given values, with ticks at each power of ten."""

    def __init__(self, xs: list[float], ys: list[float]) -> None:
        self.x_low, self.x_high = log_decades(xs)
        self.y_low, self.y_high = log_decades(ys)

    def x(self, value: float) -> float:
        span = self.x_high - self.x_low
        return LEFT + (math.log10(value) - self.x_low) / span * (WIDTH - LEFT - RIGHT)

    def y(self, value: float) -> float:
        span = self.y_high - self.y_low
        return HEIGHT - BOTTOM - (math.log10(value) - self.y_low) / span * (HEIGHT - TOP - BOTTOM)

    def draw(
        self,
        x_label: str,
        y_label: str,
        x_format: Callable[[float], str],
        y_format: Callable[[float], str],
    ) -> list[str]:
        out = []
        for e in range(self.x_low, self.x_high + 1):
            x = self.x(10.0**e)
            out.append(
                f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{HEIGHT - BOTTOM}" '
                f'stroke="#d9dee7"/><text x="{x:.1f}" y="{HEIGHT - BOTTOM + 14}" '
                f'text-anchor="middle" fill="#5b6577">{escape(x_format(10.0**e))}</text>'
            )
        for e in range(self.y_low, self.y_high + 1):
            y = self.y(10.0**e)
            out.append(
                f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" '
                f'stroke="#d9dee7"/><text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" '
                f'fill="#5b6577">{escape(y_format(10.0**e))}</text>'
            )
        out.append(
            f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.1f}" y="{HEIGHT - 12}" text-anchor="middle" '
            f'fill="#5b6577">{escape(x_label)}</text>'
            f'<text x="14" y="{(TOP + HEIGHT - BOTTOM) / 2:.1f}" text-anchor="middle" '
            f'fill="#5b6577" transform="rotate(-90 14 {(TOP + HEIGHT - BOTTOM) / 2:.1f})">'
            f"{escape(y_label)}</text>"
        )
        return out


def _svg(title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{WIDTH}" '
        f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="system-ui, sans-serif" '
        f'font-size="11"><title>{escape(title)}</title>'
        f'<text x="0" y="16" font-size="13" font-weight="600">{escape(title)}</text>'
        + "".join(body)
        + "</svg>"
    )


def _link(href: str, inner: str) -> str:
    return f"<a href={quoteattr(href)}>{inner}</a>" if href else inner


def scatter_chart(
    title: str,
    points: list[Point],
    *,
    x_label: str,
    y_label: str,
    x_format: Callable[[float], str],
    y_format: Callable[[float], str],
) -> str:
    """Labelled points on log-log axes; "" where no point has two positive values."""
    points = [p for p in points if p.x > 0 and p.y > 0]
    if not points:
        return ""
    axes = _LogAxes([p.x for p in points], [p.y for p in points])
    body = axes.draw(x_label, y_label, x_format, y_format)
    for i, p in enumerate(points):
        x, y = axes.x(p.x), axes.y(p.y)
        colour = PALETTE[i % len(PALETTE)]
        body.append(
            _link(
                p.href,
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}"><title>'
                f"{escape(p.label)}: {escape(y_format(p.y))}, {escape(x_format(p.x))}</title>"
                f'</circle><text x="{x + 7:.1f}" y="{y + (4 if i % 2 == 0 else 14):.1f}">'
                f"{escape(p.label)}</text>",
            )
        )
    return _svg(title, body)


def lines_chart(
    title: str,
    series: list[Series],
    *,
    x_label: str,
    y_label: str,
    x_format: Callable[[float], str],
    y_format: Callable[[float], str],
) -> str:
    """One labelled polyline per series on log-log axes; "" where nothing is positive."""
    series = [
        Series(s.label, tuple(p for p in s.points if p[0] > 0 and p[1] > 0), s.href) for s in series
    ]
    series = [s for s in series if s.points]
    if not series:
        return ""
    axes = _LogAxes(
        [p[0] for s in series for p in s.points], [p[1] for s in series for p in s.points]
    )
    body = axes.draw(x_label, y_label, x_format, y_format)
    for i, s in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        coords = " ".join(f"{axes.x(x):.1f},{axes.y(y):.1f}" for x, y in s.points)
        last_x, last_y = s.points[-1]
        body.append(
            _link(
                s.href,
                f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2">'
                f"<title>{escape(s.label)}</title></polyline>"
                + "".join(
                    f'<circle cx="{axes.x(x):.1f}" cy="{axes.y(y):.1f}" r="3" fill="{colour}"/>'
                    for x, y in s.points
                )
                + f'<text x="{axes.x(last_x) - 4:.1f}" y="{axes.y(last_y) - 6:.1f}" '
                f'text-anchor="end" fill="{colour}">{escape(s.label)}</text>',
            )
        )
    return _svg(title, body)


def rankings_chart(page: RankingsPage) -> str:
    """The chart of a rankings page: cycles against the first size column (log-log), or for
    hash functions cycles per byte against message length; one point or line per candidate."""
    spec = page.spec.summary
    if spec is None:
        return ""
    figure_keys = [c.key for c in page.columns if c.numeric and c.key in page.figure_keys]
    if not figure_keys:
        return ""
    where = f"{page.filters.target or 'every'} bits on {page.filters.system}"
    if page.spec.is_hash:
        series = [
            Series(
                row.submission_key,
                tuple(
                    (float(n), row.cells[key].value / n)
                    for key, (_, n) in zip(page.figure_keys, spec.figure_points(), strict=True)
                    if row.cells[key].value
                ),
                row.cells["algorithm"].href,
            )
            for row in page.rows
        ]
        return lines_chart(
            f"Cycles per byte against message length — {where}",
            series,
            x_label="message length (bytes)",
            y_label="cycles per byte",
            x_format=lambda v: fmt.format_message_length(int(v)),
            y_format=fmt.format_general,
        )
    y_key = page.filters.sort if page.filters.sort in figure_keys else figure_keys[0]
    x_key = spec.size_keys[0] if spec.size_keys else ""
    headers = {c.key: c.header for c in page.columns}
    if not x_key:
        return ""
    points = [
        Point(
            row.submission_key,
            row.cells[x_key].value,
            row.cells[y_key].value,
            row.cells["algorithm"].href,
        )
        for row in page.rows
        if row.cells[x_key].value and row.cells[y_key].value
    ]
    return scatter_chart(
        f"{headers[y_key]} against {headers[x_key]} — {where} (log-log)",
        points,
        x_label=f"{headers[x_key]}",
        y_label=headers[y_key],
        x_format=lambda v: fmt.format_int(round(v)),
        y_format=fmt.format_cycles,
    )

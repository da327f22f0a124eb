"""Plain data returned by the page builders: formatted cells, tables and chart inputs.

Cells hold formatted strings (from `measurements.formatting`) split into text and inline-code
parts; how they are written out (HTML template, Markdown) is up to the renderer.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cell:
    """One formatted table cell: text and inline-code parts, an optional link and note."""

    parts: tuple[tuple[str, str], ...]
    href: str = ""
    numeric: bool = False
    note: int | None = None  # footnote number (KAT causes)

    @property
    def text(self) -> str:
        """Plain text, as a reader sees it."""
        return "".join(text for _, text in self.parts) + self.note_suffix

    @property
    def note_suffix(self) -> str:
        return f" [{self.note}]" if self.note else ""


def text(value: str, *, numeric: bool = False, href: str = "", note: int | None = None) -> Cell:
    """A cell of plain text."""
    return Cell(parts=(("text", value),), numeric=numeric, href=href, note=note)


def code(value: str, *, href: str = "") -> Cell:
    """A cell of inline code (an instance label, a path)."""
    return Cell(parts=(("code", value),), href=href)


def figure(value: str) -> Cell:
    """A right-aligned formatted number."""
    return text(value, numeric=True)


@dataclass(frozen=True)
class Table:
    key: str
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


# --- Chart inputs (values, not strings: charts.py formats the labels) --------------------------


@dataclass(frozen=True)
class ChartBar:
    series: str
    value: float | None


@dataclass(frozen=True)
class ChartGroup:
    label: str
    bars: tuple[ChartBar, ...]


@dataclass(frozen=True)
class ChartData:
    title: str
    series: tuple[str, ...]
    groups: tuple[ChartGroup, ...]

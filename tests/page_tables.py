"""Parse the tables of a Markdown page and of an HTML page into rows of plain-text cells."""

from __future__ import annotations

import re
from html.parser import HTMLParser

Table = list[list[str]]


def markdown_cell_text(cell: str) -> str:
    """A Markdown cell as a reader sees it: no backticks, emphasis or link syntax."""
    cell = cell.strip().replace("\\|", "|")
    cell = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", cell)
    return cell.replace("`", "").replace("**", "").strip()


def markdown_tables(markdown: str) -> list[Table]:
    """Every table of a Markdown text (header row first, separator rows dropped)."""
    tables: list[Table] = []
    current: Table | None = None
    for line in markdown.splitlines():
        if line.startswith("|"):
            if current is None:
                current = []
                tables.append(current)
            if re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line.strip()):
                continue
            cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
            current.append([markdown_cell_text(c) for c in cells])
        else:
            current = None
    return tables


def markdown_table_lines(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("|")]


class _TableParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, Table, list[list[str]]]] = []
        self._stack: list[tuple[str, Table, list[list[str]]]] = []
        self._cell: list[str] | None = None
        self._links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            entry = (dict(attrs).get("id") or "", [], [])
            self._stack.append(entry)
            self.tables.append(entry)
        elif tag == "tr" and self._stack:
            self._stack[-1][1].append([])
            self._stack[-1][2].append([])
        elif tag in ("td", "th") and self._stack:
            self._cell = []
            self._links = []
        elif tag == "a" and self._cell is not None:
            self._links.append(dict(attrs).get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._stack:
            text = re.sub(r"\s+", " ", "".join(self._cell)).strip()
            self._stack[-1][1][-1].append(text)
            self._stack[-1][2][-1].append(self._links[0] if self._links else "")
            self._cell = None
        elif tag == "table" and self._stack:
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_tables(html: str) -> list[tuple[str, Table, list[list[str]]]]:
    """(id, rows of cell texts, rows of first link hrefs) for every table of an HTML page."""
    parser = _TableParser()
    parser.feed(html)
    return parser.tables

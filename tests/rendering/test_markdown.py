"""The Markdown renderer: cells, tables and the summary page without a campaign."""

from __future__ import annotations

import pytest

from measurements.rendering.markdown import (
    markdown_cell,
    markdown_table,
    summary_markdown,
    table_lines,
)
from measurements.selectors.pages.cells import Cell, Table, code, figure, text
from measurements.selectors.pages.summary import system_summary
from tests.factories import SystemFactory


def test_a_cell_puts_code_in_backticks_escapes_pipes_and_keeps_its_note():
    cell = Cell(parts=(("text", "KAT log (sha256 "), ("code", "ab|cd…"), ("text", ")")), note=2)
    assert markdown_cell(cell) == "KAT log (sha256 `ab\\|cd…`) [2]"
    assert markdown_cell(code("TEST-0")) == "`TEST-0`"
    assert markdown_cell(figure("1.2 k")) == "1.2 k"


def test_a_table_has_a_header_a_separator_and_one_line_per_row():
    table = Table(
        "sizes",
        ("instance", "digest"),
        ((code("H-256"), figure("32")), (code("H-512"), text("a|b"))),
    )
    assert markdown_table(table) == [
        "| instance | digest |",
        "|---|---|",
        "| `H-256` | 32 |",
        "| `H-512` | a\\|b |",
    ]
    assert table_lines(("a",), []) == ["| a |", "|---|"]


@pytest.mark.django_db
def test_the_summary_of_a_system_without_campaign_says_so(empty_db):
    system = SystemFactory(key="box_md", arch="aarch64")
    assert summary_markdown(system_summary(system)) == (
        "# Performance — AArch64, system box_md\n\n"
        "No campaign has been imported or run on this system yet.\n"
    )

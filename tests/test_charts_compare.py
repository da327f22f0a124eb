"""Rankings charts: labelled, linked points on log-log axes; hash lines per candidate."""

from __future__ import annotations

import re

from measurements import formatting as fmt
from measurements.charts_compare import Point, Series, lines_chart, rankings_chart, scatter_chart
from measurements.selectors.pages.rankings import rankings_page


def test_scatter_points_are_labelled_and_link_to_profiles():
    svg = scatter_chart(
        "t",
        [Point("kem-1", 800, 150_000, "/candidates/kem-1/"), Point("kem-2", 8000, 1.5e6)],
        x_label="public key (B)",
        y_label="keygen cycles",
        x_format=lambda v: fmt.format_int(round(v)),
        y_format=fmt.format_cycles,
    )
    assert re.search(r'<a href="/candidates/kem-1/"><circle [^>]*><title>kem-1: 150\.0 k, 800', svg)
    assert ">kem-1</text></a>" in svg and ">kem-2</text>" in svg
    # Ticks at each power of ten, one style per axis.
    for tick in (
        ">100</text>",
        ">1000</text>",
        ">10000</text>",
        ">100.0 k</text>",
        ">1.00 M</text>",
    ):
        assert tick in svg
    assert "<script" not in svg and "http://" not in svg.replace("http://www.w3.org/2000/svg", "")


def test_lines_chart_and_empty_charts():
    svg = lines_chart(
        "hash",
        [Series("hash-1", ((32, 40.0), (1024, 10.0), (65536, 8.0)), "/candidates/hash-1/")],
        x_label="message length (bytes)",
        y_label="cycles per byte",
        x_format=lambda v: fmt.format_message_length(int(v)),
        y_format=fmt.format_general,
    )
    assert svg.count("<circle") == 3 and "<polyline" in svg
    assert ">10 B</text>" in svg and ">100000 B</text>" in svg
    assert scatter_chart("t", [], x_label="", y_label="", x_format=str, y_format=str) == ""


def test_rankings_chart_plots_every_ranked_candidate(arm1):
    page = rankings_page("kem", {"target": "128", "system": "arm_1", "sort": "enc"})
    svg = rankings_chart(page)
    assert "enc cycles against public key (B) — 128 bits on arm_1 (log-log)" in svg
    assert set(re.findall(r'<a href="/candidates/([^/]+)/">', svg)) == {
        "kem-17",
        "kem-29",
        "kem-30",
        "kem-38",
    }
    assert "<title>kem-30: 176.6 k, 530</title>" in svg

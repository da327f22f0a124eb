"""SVG charts: well-formed, log scale, labels from the one formatter, nothing external."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from measurements.charts import log_bar_chart
from measurements.selectors.pages.cells import ChartBar, ChartData, ChartGroup

SVG = "{http://www.w3.org/2000/svg}"


def _data() -> ChartData:
    return ChartData(
        title="Mean cycles <per> operation",
        series=("keygen", "enc", "dec"),
        groups=(
            ChartGroup(
                "A-128",
                (
                    ChartBar("keygen", 158_359.1),
                    ChartBar("enc", 1_230_000.0),
                    ChartBar("dec", None),
                ),
            ),
            ChartGroup(
                "A-512",
                (
                    ChartBar("keygen", 41_204_972_527.4),
                    ChartBar("enc", 9_623.4),
                    ChartBar("dec", 2_460_000.0),
                ),
            ),
        ),
    )


def test_chart_is_well_formed_svg_with_formatted_labels():
    svg = log_bar_chart(_data())
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    for label in ("158.4 k", "1.23 M", "41.20 G", "9623", "2.46 M", "–", "A-128", "A-512"):
        assert label in texts
    assert "Mean cycles <per> operation" in texts  # escaped in the markup, intact when parsed
    assert len(list(root.iter(f"{SVG}rect"))) == 5  # the missing value draws no bar
    assert "http" not in svg.replace("http://www.w3.org/2000/svg", "")
    assert "<script" not in svg


def test_bars_are_on_a_log_scale():
    root = ET.fromstring(log_bar_chart(_data()))
    widths = {
        r.find(f"{SVG}title").text.split(": ")[1]: float(r.get("width"))
        for r in root.iter(f"{SVG}rect")
    }
    # 1.23 M vs 158.4 k: ratio ~7.8, so the log widths differ by log10(7.8) decades, not ×7.8.
    assert widths["1.23 M"] < 2 * widths["158.4 k"]
    assert widths["41.20 G"] > widths["2.46 M"] > widths["1.23 M"] > widths["158.4 k"]
    # Ticks at every power of ten from 10^3 to 10^11, labelled by the formatter.
    ticks = [t.text for t in root.iter(f"{SVG}text") if t.get("text-anchor") == "middle"]
    assert ticks[0] == "1000" and "10.0 k" in ticks and "100.00 G" in ticks


def test_nothing_to_draw_gives_no_chart():
    empty = ChartData("t", ("keygen",), (ChartGroup("A", (ChartBar("keygen", None),)),))
    assert log_bar_chart(empty) == ""

"""The compare page over HTTP (form without JavaScript, CSV)."""

from __future__ import annotations

import csv
import io

URL = "/compare/?a=kem-29:PolarKEM-128&b=kem-30:POLARLAC-128&system=arm_1"


def test_compare_page(client, arm1, django_assert_max_num_queries):
    with django_assert_max_num_queries(9):
        response = client.get(URL)
    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="a" value="kem-29:PolarKEM-128"' in html
    assert 'name="c" value=""' in html  # one more instance can be added without JavaScript
    assert '<option value="kem-30:POLARLAC-128">' in html
    table = html.split('id="table-compare"', 1)[1].split("</table>", 1)[0]
    assert "<td>keygen cycles</td>" in table and "0.85×" in table


def test_compare_csv(client, arm1):
    response = client.get(URL + "&format=csv")
    assert (
        'filename="compare-kem-29-PolarKEM-128-vs-kem-30-POLARLAC-128.csv"'
        in (response["Content-Disposition"])
    )
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == [
        "figure",
        "kem-29 PolarKEM-128 on arm_1",
        "kem-30 POLARLAC-128 on arm_1",
        "b / a",
        "b ≠ a beyond uncertainty?",
    ]
    assert rows[1] == ["keygen cycles", "158.4 k", "134.8 k", "0.85×", "yes"]


def test_empty_compare_page_offers_the_form(client, arm1):
    html = client.get("/compare/").content.decode()
    assert 'name="a" value=""' in html

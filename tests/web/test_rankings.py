"""The rankings page over HTTP: server-side sort links, filters in the URL, CSV, query count."""

from __future__ import annotations

import csv
import io
import re

URL = "/rankings/kem/?target=128&system=arm_1&sort=keygen"


def _row_ids(html: str) -> list[str]:
    table = html.split('id="table-rankings"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr data-candidate="([^"]+)"', table)


def test_rankings_page_orders_rows_and_links_every_header(
    client, arm1, django_assert_max_num_queries
):
    with django_assert_max_num_queries(10):
        response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert _row_ids(html) == ["kem-30", "kem-29", "kem-17", "kem-38"]
    # Every header is a plain link carrying the whole state (works without JavaScript).
    assert 'href="/rankings/kem/?target=128&amp;system=arm_1&amp;sort=keygen&amp;dir=desc"' in html
    assert 'href="/rankings/kem/?target=128&amp;system=arm_1&amp;sort=pk"' in html
    assert 'aria-sort="ascending"' in html
    assert "build failed (BUILDFAIL)" in html.split('id="table-unranked"', 1)[1]


def test_rankings_filters_come_from_the_url(client, arm1):
    html = client.get(URL + "&q=polar&dir=desc").content.decode()
    assert _row_ids(html) == ["kem-29", "kem-30"]
    assert 'value="polar"' in html


def test_rankings_csv_has_the_rows_of_the_page(client, arm1):
    response = client.get(URL + "&format=csv")
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="rankings-kem-128-arm_1.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:5] == ["id", "algorithm", "instance", "target (bits)", "keygen cycles"]
    assert rows[1][:5] == ["kem-30", "PolarLAC", "POLARLAC-128", "128", "134777.22371993793"]
    assert [r[0] for r in rows[1:]] == ["kem-30", "kem-29", "kem-17", "kem-38"]


def test_rankings_query_count_does_not_grow_with_categories(
    client, arm1, django_assert_max_num_queries
):
    for category in ("sign", "kex", "hash"):
        with django_assert_max_num_queries(10):
            assert client.get(f"/rankings/{category}/?system=arm_1&target=any").status_code == 200


def test_unknown_category_or_system_is_404(client, arm1):
    assert client.get("/rankings/iccs/").status_code == 404
    assert client.get("/rankings/kem/?system=nowhere").status_code == 404


def test_favicon_and_index_links(client, arm1):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/svg+xml"
    html = client.get("/").content.decode()
    # The ICCS helpers' page is a candidate route since lead's link module (no 404 to avoid).
    assert 'href="/performance/arm_1/iccs/"' in html
    assert 'href="/rankings/kem/?target=128"' in html
    assert 'href="/candidates/kem-29/"' in html

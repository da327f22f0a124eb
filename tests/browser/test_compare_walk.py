"""A real browser (Debian chromium via Playwright) ranks KEMs at 128 bits, opens a profile,
compares two instances, drills into one measurement's trials and downloads their CSV; then every
page of the walk is checked at 390 px: no document is wider than the viewport."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_browse import (  # noqa: F401 (fixtures)
    ARTIFACTS,
    _restore_session_data,
    browser_page,
    shared_data,
)
from tests.conftest import PAGES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 1000}


@pytest.fixture
def with_published(shared_data):  # noqa: F811
    from measurements.services.published_campaigns import published_campaigns_import

    published_campaigns_import(directory=PAGES, system_key="x86_1")


def _shot(page, name: str) -> None:
    page.screenshot(
        path=str(ARTIFACTS / f"{name}-{page.viewport_size['width']}.png"), full_page=True
    )


def _document_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def test_rank_profile_compare_measurement_csv(with_published, live_server, browser_page):  # noqa: F811
    page, errors = browser_page
    ARTIFACTS.mkdir(exist_ok=True)
    visited: list[tuple[str, str]] = []

    page.goto(live_server.url + "/")
    page.locator(
        '#rankings a:has-text("key encapsulation"), a[href="/rankings/kem/?target=128"]'
    ).first.click()
    page.wait_for_url(re.compile(r"/rankings/kem/\?target=128$"))
    page.select_option('select[name="system"]', "arm_1")
    page.select_option('select[name="target"]', "128")
    page.locator('form.filters button[type="submit"]').click()
    page.wait_for_url(re.compile(r"system=arm_1"))
    rows = page.locator("#table-rankings tbody tr")
    assert rows.first.get_attribute("data-candidate") == "kem-30"
    assert rows.first.locator("td").nth(4).inner_text() == "134.8 k"
    visited.append(("rankings", page.url))
    _shot(page, "rankings-kem-128")

    page.locator(
        '#table-rankings tr[data-candidate="kem-29"] a[href="/candidates/kem-29/"]'
    ).click()
    page.wait_for_url(re.compile(r"/candidates/kem-29/$"))
    assert "published page, no raw trials" in page.locator("#table-systems").inner_text()
    first = page.locator("#table-profile tbody tr").first.locator("td")
    assert [first.nth(i).inner_text() for i in range(3, 6)] == ["158.4 k", "166.5 k", "1.05×"]
    visited.append(("profile", page.url))
    _shot(page, "profile-kem-29")

    page.go_back()
    page.locator("#compare-top").click()
    page.wait_for_url(re.compile(r"/compare/\?"))
    compare_row = page.locator("#table-compare tbody tr").first.locator("td")
    assert compare_row.nth(0).inner_text() == "keygen cycles"
    assert compare_row.nth(3).inner_text() == "1.17×"  # 158.4 k / 134.8 k
    visited.append(("compare", page.url))
    _shot(page, "compare")

    compare_row.nth(1).locator("a").click()
    page.wait_for_url(re.compile(r"/measurements/\d+/$"))
    assert page.locator("#table-trials tbody tr").count() == 5
    assert page.locator("svg.chart").first.is_visible()
    visited.append(("measurement", page.url))
    _shot(page, "measurement")
    with page.expect_download() as download_info:
        page.locator('a[href$="?format=csv"]').first.click()
    download = download_info.value
    assert re.fullmatch(
        r"measurement-\d+-kem-30-POLARLAC-128-keygen-trials\.csv", download.suggested_filename
    )
    saved = ARTIFACTS / download.suggested_filename
    download.save_as(str(saved))
    assert (
        saved.read_text().splitlines()[0].startswith("index,process_index,cpu,counter,measurements")
    )

    visited += [
        ("index", live_server.url + "/"),
        ("summary", live_server.url + "/performance/arm_1/"),
        ("candidate", live_server.url + "/performance/arm_1/kem-29/"),
        ("candidate-x86", live_server.url + "/performance/x86_1/kem-29/"),
    ]
    page.set_viewport_size(PHONE)
    too_wide = {}
    for name, url in visited:
        page.goto(url)
        _shot(page, name)
        if _document_width(page) > PHONE["width"]:
            too_wide[name] = _document_width(page)
    assert too_wide == {}
    assert errors == []

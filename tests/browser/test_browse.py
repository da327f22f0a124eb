"""A real browser (Debian chromium via Playwright) walks from the index to an evidence file."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import (
    ARM1_DATA,
    SHARED_MISSING_REASON,
    SHARED_PRESENT,
    load_shared_reference,
)

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_page(monkeypatch):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    # Playwright's sync API runs an event loop; Django must allow its ORM calls around it (for
    # this test only: a leaked variable fails `check --deploy` in tests/test_settings.py).
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            yield page, errors
        finally:
            browser.close()


@pytest.fixture(scope="module", autouse=True)
def _restore_session_data(django_db_blocker):
    """live_server's transactional database is flushed after the test, which empties the data
    the session loaded for every other test: load it again once this module is done."""
    yield
    if SHARED_PRESENT:
        with django_db_blocker.unblock():
            load_shared_reference()


@pytest.fixture
def shared_data(transactional_db):
    """live_server flushes the database: import the shared data inside the test."""
    if not SHARED_PRESENT:
        pytest.skip(SHARED_MISSING_REASON)
    load_shared_reference()


def test_index_to_candidate_to_evidence_and_back(shared_data, live_server, browser_page):
    page, errors = browser_page
    ARTIFACTS.mkdir(exist_ok=True)

    page.goto(live_server.url + "/")
    assert page.title()
    # The stylesheet is a static file allowed by the Content-Security-Policy (no inline styles).
    assert page.locator("header.site").evaluate("e => getComputedStyle(e).display") == "flex"
    link = page.locator('a[href="/performance/arm_1/kem-29/"]').first
    if link.count() == 0:  # the index may not list candidates: go through the summary
        page.locator('a[href="/performance/arm_1/"]').first.click()
        page.wait_for_load_state()
        link = page.locator('a[href="/performance/arm_1/kem-29/"]').first
    link.click()
    page.wait_for_url(re.compile(r"/performance/arm_1/kem-29/$"))
    assert page.locator("h1").inner_text() == (
        "kem-29 Polar-KEM — performance on AArch64 (system arm_1)"
    )
    first_row = page.locator("#table-performance tbody tr").first
    assert first_row.locator("td").nth(2).inner_text() == "158.4 k"
    chart = page.locator("svg.chart").first
    assert chart.is_visible()
    assert chart.bounding_box()["width"] > 300
    page.screenshot(path=str(ARTIFACTS / "candidate-kem-29-arm_1.png"), full_page=True)

    page.locator('#table-evidence a:has-text("records/kem-29/PolarKEM-128__keygen.json")').click()
    page.wait_for_url(re.compile(r"/evidence/\d+/$"))
    content = page.locator("#evidence-content").inner_text()
    assert '"operation": "keygen"' in content
    assert len(page.locator("#sha256").inner_text()) == 64
    page.screenshot(path=str(ARTIFACTS / "evidence-record.png"), full_page=True)

    with page.expect_download() as download_info:
        page.locator('a[href$="/raw/"]').first.click()
    download = download_info.value
    assert download.suggested_filename == "PolarKEM-128__keygen.json"
    saved = ARTIFACTS / download.suggested_filename
    download.save_as(str(saved))
    assert (
        saved.read_bytes() == (ARM1_DATA / "records/kem-29/PolarKEM-128__keygen.json").read_bytes()
    )

    page.go_back()
    page.wait_for_url(re.compile(r"/performance/arm_1/kem-29/$"))
    page.locator('a:has-text("Performance arm_1")').first.click()
    page.wait_for_url(re.compile(r"/performance/arm_1/$"))
    page.screenshot(path=str(ARTIFACTS / "summary-arm_1.png"), full_page=True)

    page.goto(live_server.url + "/performance/arm_1/kem-99/")
    assert "Not found" in page.content()
    # The deliberate 404 above logs a console error for the failed document load; nothing else may.
    unexpected = [e for e in errors if "404" not in e]
    assert unexpected == []
    shutil.rmtree(ARTIFACTS / "tmp", ignore_errors=True)

"""Shared fixtures.

The shared reference dataset (``../shared/reference``) is read in place, never copied. When it is
present, the test database is loaded once per session with the arm_1 dataset and the catalogs;
each test then runs in a transaction that is rolled back. Tests that need the data use the
`arm1` fixture, which skips with a clear reason where the shared folder is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

REFERENCE = Path(settings.NGCC_SHARED_DIR) / "reference"
HARNESS_DATA = REFERENCE / "harness-data" / "performance"
ARM1_DATA = HARNESS_DATA / "data" / "arm_1"
PAGES = REFERENCE / "pages"
SHARED_PRESENT = ARM1_DATA.is_dir()
SHARED_MISSING_REASON = f"shared reference data not found at {REFERENCE}"


def load_shared_reference() -> None:
    """Import the shared catalogs, the arm_1 dataset and the published pages' metadata."""
    from measurements.services.imports import catalogs_import, harness_dataset_import
    from measurements.services.published_pages import published_metadata_import

    catalogs_import(directory=HARNESS_DATA)
    harness_dataset_import(directory=ARM1_DATA, system_key="arm_1")
    published_metadata_import(directory=PAGES)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Load the shared arm_1 dataset once into the test database, if it is there."""
    if SHARED_PRESENT:
        with django_db_blocker.unblock():
            load_shared_reference()


@pytest.fixture
def arm1(db):
    """The imported arm_1 campaign (skips where the shared data is absent)."""
    if not SHARED_PRESENT:
        pytest.skip(SHARED_MISSING_REASON)
    from measurements.models import Campaign

    return Campaign.objects.get(system__key="arm_1")


@pytest.fixture
def empty_db(db):
    """A database without the session's imported data (rolled back after the test)."""
    from measurements.models import (
        Campaign,
        ExternalSize,
        KatIssue,
        KexBandwidth,
        SecurityTarget,
        Submission,
        SummaryNote,
        System,
    )

    Campaign.objects.all().delete()
    Submission.objects.all().delete()
    System.objects.all().delete()
    for model in (ExternalSize, KatIssue, KexBandwidth, SecurityTarget, SummaryNote):
        model.objects.all().delete()


@pytest.fixture
def shared_arm1_dir() -> Path:
    if not SHARED_PRESENT:
        pytest.skip(SHARED_MISSING_REASON)
    return ARM1_DATA


@pytest.fixture
def shared_catalog_dir() -> Path:
    if not SHARED_PRESENT:
        pytest.skip(SHARED_MISSING_REASON)
    return HARNESS_DATA


@pytest.fixture
def reference_pages_dir() -> Path:
    if not PAGES.is_dir():
        pytest.skip(SHARED_MISSING_REASON)
    return PAGES


@pytest.fixture
def x86_1_published(arm1):
    """The published x86_1 pages (kem-29, kem-30, kem-38) imported as the x86_1 campaign
    "published page, no raw trials" (inside the test's transaction)."""
    from measurements.services.published_campaigns import published_campaigns_import

    published_campaigns_import(directory=PAGES, system_key="x86_1")
    from measurements.models import Campaign

    return Campaign.objects.get(key="x86_1-published-pages")


@pytest.fixture
def page_cache(settings):
    """Rendered pages and API reads cached (off in the other tests, which count queries)."""
    settings.NGCC_PAGE_CACHE = True

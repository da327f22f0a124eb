"""API test fixtures: an anonymous API client, a staff token, no throttling unless asked."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def _unthrottled(settings, db):
    """Throttling off (a rate of None) and a clean throttle cache, so no test is rate-limited
    by the requests of another; the throttle test sets its own rate."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": None},
    }
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def staff_token(db) -> str:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user("staff", password="x", is_staff=True)
    return Token.objects.create(user=user).key

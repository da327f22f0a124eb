"""Throttling of anonymous clients, with the rate read from the settings at request time.

DRF's `AnonRateThrottle` binds `DEFAULT_THROTTLE_RATES` when the class is imported; this one
reads it on each request, so the rate follows the settings (`NGCC_ANON_THROTTLE` in the
environment, or a test's override). A rate of ``None`` disables the throttle.
"""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle


class AnonymousClientThrottle(AnonRateThrottle):
    scope = "anon"

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

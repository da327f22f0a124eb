"""Anyone reads; only staff could write (and the API has no write endpoints at all)."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView


class ReadOnlyOrStaff(BasePermission):
    """Safe methods for everyone; anything else needs an authenticated staff user.

    Anonymous writes therefore get 401 (403 with a session) before the method is even looked
    up, and a staff token gets 405 from the read-only viewsets.
    """

    def has_permission(self, request: Request, view: APIView) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated and request.user.is_staff)

"""Site-wide answers that are not pages: the favicon."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import cache_control

#: A small "N" on the site's accent colour, drawn once (no file to serve, no CDN).
FAVICON_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<rect width="16" height="16" rx="3" fill="#1f5fbf"/>'
    '<path d="M4 12V4h1.6l4.8 5.6V4H12v8h-1.6L5.6 6.4V12z" fill="#fff"/></svg>'
)


@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponse(FAVICON_SVG, content_type="image/svg+xml")

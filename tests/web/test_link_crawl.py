"""Every internal link reachable from the index answers (no 404, no 500)."""

from __future__ import annotations

import re
from collections import deque
from html import unescape
from urllib.parse import urldefrag, urljoin

from django.conf import settings as django_settings
from django.contrib.staticfiles import finders

HREF = re.compile(r'(?:href|src)="([^"]+)"')
#: Followed but not parsed: JSON/API answers and raw downloads carry no page links to check.
NOT_PARSED = ("/api/", "/evidence/", "/admin/")
LIMIT = 5000


def _links(base: str, html: str) -> set[str]:
    found = set()
    for raw in HREF.findall(html):
        url = urldefrag(urljoin(base, unescape(raw)))[0]
        if url.startswith("/") and not url.startswith("//"):
            found.add(url)
    return found


STATIC_PREFIX = "/" + django_settings.STATIC_URL.lstrip("/")


def crawl(client, start: str = "/") -> tuple[dict[str, int], dict[str, str]]:
    """Status of every internal URL reachable from `start`, and where each was found."""
    status: dict[str, int] = {}
    found_on: dict[str, str] = {start: "(start)"}
    queue = deque([start])
    while queue and len(status) < LIMIT:
        url = queue.popleft()
        if url.startswith(STATIC_PREFIX):
            # Static files are served by the web server, not the app: the file must exist.
            status[url] = 200 if finders.find(url.removeprefix(STATIC_PREFIX)) else 404
            continue
        response = client.get(url)
        status[url] = response.status_code
        content_type = response.get("Content-Type", "")
        parse = response.status_code == 200 and content_type.startswith("text/html")
        if not parse or url.startswith(NOT_PARSED) or "format=csv" in url:
            continue
        for link in _links(url, response.content.decode()):
            if link not in found_on:
                found_on[link] = url
                queue.append(link)
    assert not queue, f"crawl stopped at {LIMIT} pages"
    return status, found_on


def test_no_broken_internal_link_from_the_index(client, x86_1_published):
    status, found_on = crawl(client)
    broken = {url: (code, found_on[url]) for url, code in status.items() if code >= 400}
    assert broken == {}
    # The crawl reached every kind of page this issue adds.
    for prefix in ("/rankings/kem/", "/candidates/kem-29/", "/compare/", "/measurements/"):
        assert any(url.startswith(prefix) for url in status), prefix
    assert "/performance/x86_1/kem-29/" in status

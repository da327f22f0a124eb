"""Rendered pages cached per data version.

Pages only change when the data does, so a rendered page is cached under a key made of its URL
and the current `DataVersion` number. Every write to a `measurements` model bumps the number
(signals in `measurements.signals`; bulk writers bump once themselves), which makes every cached
page stale at once. Only anonymous GET/HEAD requests answered 200 without cookies are cached, in
the shared cache (Redis or the database table), so every worker process sees the same entries.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F
from django.http import HttpRequest, HttpResponse

from measurements.models import DataVersion, _new_token

#: How long an entry may live even if nothing changes (entries are also culled by the cache).
PAGE_TIMEOUT_SECONDS = 24 * 3600
_KEPT_HEADERS = ("Content-Type", "Content-Disposition")
#: Bytes of pages each process keeps in memory in front of the shared cache.
LOCAL_CACHE_BYTES = 32 * 1024 * 1024


class _LocalPages:
    """A small per-process LRU in front of the shared cache (keys carry the data version, so an
    entry can never be stale; it is only ever evicted)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.size = 0
        self.entries: OrderedDict[str, tuple[bytes, dict[str, str]]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: str) -> tuple[bytes, dict[str, str]] | None:
        with self.lock:
            entry = self.entries.get(key)
            if entry is not None:
                self.entries.move_to_end(key)
            return entry

    def put(self, key: str, entry: tuple[bytes, dict[str, str]]) -> None:
        with self.lock:
            if key in self.entries or len(entry[0]) > self.capacity // 4:
                return
            self.entries[key] = entry
            self.size += len(entry[0])
            while self.size > self.capacity:
                _, (content, _) = self.entries.popitem(last=False)
                self.size -= len(content)


_local = _LocalPages(LOCAL_CACHE_BYTES)


def data_version() -> str | None:
    """The current data version (token and number), or None before the first data change."""
    row = DataVersion.objects.filter(pk=1).values_list("token", "number").first()
    return f"{row[0]}.{row[1]}" if row else None


def data_version_bump() -> None:
    """Make every cached page stale (inside the caller's transaction: undone on rollback).

    The token changes with every bump, so a bump that was rolled back and a later one never
    share a key, even in a process that cached pages under the rolled-back version.
    """
    changes = {"number": F("number") + 1, "token": _new_token()}
    if DataVersion.objects.filter(pk=1).update(**changes):
        return
    try:
        with transaction.atomic():
            DataVersion.objects.create(pk=1, number=1)
    except IntegrityError:  # created concurrently: bump that row instead
        DataVersion.objects.filter(pk=1).update(**changes)


def page_cache_key(request: HttpRequest, variant: str = "") -> str | None:
    """The cache key of this request's page under the current data version (None: no data
    version yet, nothing is cached)."""
    if not settings.NGCC_PAGE_CACHE:
        return None
    version = data_version()
    if version is None:
        return None
    # Scheme and host too: API pages hold absolute links.
    where = f"{variant}|{request.scheme}://{request.get_host()}{request.get_full_path()}"
    digest = hashlib.sha256(where.encode()).hexdigest()
    return f"page:{version}:{digest}"


def cached_response(key: str | None) -> HttpResponse | None:
    """The cached page under `key`, as a fresh response, or None."""
    if key is None:
        return None
    entry = _local.get(key)
    if entry is None:
        entry = cache.get(key)
        if entry is None:
            return None
        _local.put(key, entry)
    content, headers = entry
    response = HttpResponse(content)
    for name, value in headers.items():
        response[name] = value
    response["Content-Length"] = str(len(content))
    return response


def cache_response(key: str | None, response: HttpResponse) -> None:
    """Keep a rendered 200 response without cookies (never a streamed one)."""
    if key is None:
        return
    if response.status_code == 200 and not response.cookies and not response.streaming:
        headers = {h: response[h] for h in _KEPT_HEADERS if response.has_header(h)}
        entry = (response.content, headers)
        cache.set(key, entry, PAGE_TIMEOUT_SECONDS)
        _local.put(key, entry)


def _cacheable(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    return request.method in ("GET", "HEAD") and not (user and user.is_authenticated)


def cached_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Serve `view` from the cache while the data version is unchanged."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not _cacheable(request):
            return view(request, *args, **kwargs)
        key = page_cache_key(request)
        response = cached_response(key)
        if response is None:
            response = view(request, *args, **kwargs)
            cache_response(key, response)
        return response

    return wrapper


class CachedPageMiddleware:
    """Answer anonymous GET/HEAD requests for already cached pages before the session, CSRF,
    authentication and URL-resolving layers run (placed after the security and CSP middleware,
    which still add their headers). Pages are put in the cache by `cached_page` views."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        anonymous = settings.SESSION_COOKIE_NAME not in request.COOKIES
        if (
            anonymous
            and request.method in ("GET", "HEAD")
            and not request.path.startswith(("/api/", "/admin/"))
        ):
            response = cached_response(page_cache_key(request))
            if response is not None:
                return response
        return self.get_response(request)

"""Deploy settings: refuse to start without a secret key, pass `check --deploy` with the
production environment documented in README.md."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The production environment of README's deploy section (with a throwaway key).
PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "k" * 20 + "-a-long-random-string-for-this-test-only-" + "z" * 20,
    "ALLOWED_HOSTS": "perf.example.org",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
    "SESSION_COOKIE_SECURE": "1",
    "CSRF_COOKIE_SECURE": "1",
    "SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO,https",
}
_CLEARED = ("DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DEBUG", *PRODUCTION_ENV)


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_passes_with_the_documented_production_environment():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_fails_without_the_https_settings():
    env = {"DEBUG": "0", "SECRET_KEY": PRODUCTION_ENV["SECRET_KEY"], "ALLOWED_HOSTS": "x.org"}
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **env)
    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr


def test_debug_off_without_secret_key_refuses_to_start():
    result = _manage("check", DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY is not set: set SECRET_KEY in the environment" in result.stderr


def test_debug_is_off_unless_set():
    code = "from django.conf import settings; print(settings.DEBUG)"
    result = _manage("shell", "-c", code, SECRET_KEY=PRODUCTION_ENV["SECRET_KEY"])
    assert result.stdout.strip().splitlines()[-1] == "False", result.stderr
    assert _manage("shell", "-c", code, DEBUG="1").stdout.strip().splitlines()[-1] == "True"


def test_throttle_and_pages_share_one_cache_across_processes():
    code = (
        "from django.conf import settings;"
        "from rest_framework.throttling import SimpleRateThrottle;"
        "from django.core.cache import cache;"
        "print(settings.CACHES['default']['BACKEND'], SimpleRateThrottle.cache is cache)"
    )
    local = _manage("shell", "-c", code, DEBUG="1").stdout.strip().splitlines()[-1]
    assert local == "django.core.cache.backends.db.DatabaseCache True"
    redis = _manage("shell", "-c", code, DEBUG="1", REDIS_URL="redis://127.0.0.1:1/0")
    assert redis.stdout.strip().splitlines()[-1] == (
        "django.core.cache.backends.redis.RedisCache True"
    )

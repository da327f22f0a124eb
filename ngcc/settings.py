"""Settings for NGCC Perf, read from the environment.

`DATABASE_URL` selects the database (SQLite file in the project folder by default,
PostgreSQL through psycopg 3 when it points to ``postgres://…``). `REDIS_URL` switches the
django-q2 broker from the ORM (default) to Redis. `NGCC_CLUSTER` names the django-q2 cluster
of this box: tasks for one system are routed to that system's cluster only.
"""

import os
import tempfile
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from measurements.uncertainty import (
    DEFAULT_CAMPAIGN_SPREAD_PRIOR,
    DEFAULT_CAMPAIGN_SPREAD_PRIOR_WEIGHT,
)

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


# Off unless the environment turns it on (scripts/demo.sh does, for the local demo).
DEBUG = _env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set: set SECRET_KEY in the environment (a long random string, "
            "e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))'), or DEBUG=1 "
            "for a local development server"
        )
    SECRET_KEY = "ngcc-perf-development-key-debug-only"
ALLOWED_HOSTS = [
    h for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h
]

# HTTPS in production: all off by default (the demo serves plain HTTP on 127.0.0.1), all
# settable from the environment; README's deploy section lists the production values.
SECURE_SSL_REDIRECT = _env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = _env_bool("SECURE_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = _env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = _env_bool("CSRF_COOKIE_SECURE", False)
# Behind a TLS-terminating proxy: SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https
if os.environ.get("SECURE_PROXY_SSL_HEADER"):
    _header, _, _value = os.environ["SECURE_PROXY_SSL_HEADER"].partition(",")
    SECURE_PROXY_SSL_HEADER = (_header.strip(), _value.strip() or "https")
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

# Content-Security-Policy (django-csp 4): only our own origin; inline <style>/<script> blocks
# carry the per-request nonce (`{{ request.csp_nonce }}`), inline style attributes are not used.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_q",
    "csp",
    "simple_history",
    "measurements",
    "runner",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Cached pages for anonymous readers are answered here, below the security headers.
    "measurements.page_cache.CachedPageMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
]

ROOT_URLCONF = "ngcc.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
            ],
        },
    },
]

WSGI_APPLICATION = "ngcc.wsgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'ngcc.sqlite3'}"),
        # Persistent connections: a cached page costs two short queries, not a new login.
        conn_max_age=int(os.environ.get("NGCC_DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web server, qcluster workers) share one SQLite file: wait for locks.
    # IMMEDIATE transactions take the write lock up front, so a transaction that reads and
    # then writes waits for the lock instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 30, "transaction_mode": "IMMEDIATE"}
    )
    # Tests start real worker processes, which must see the test database: keep it in a file.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get(
            "NGCC_TEST_SQLITE",
            str(Path(tempfile.gettempdir()) / f"ngcc-test-{os.getpid()}.sqlite3"),
        )
    }

# One cache shared by every process (API throttling, rendered pages): Redis when REDIS_URL is
# set, else a database table (`manage.py createcachetable`, run wherever migrations run).
if os.environ.get("REDIS_URL"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": os.environ.get("NGCC_Q_NAME", "ngcc"),
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "ngcc_cache",
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    }

# Rendered pages and anonymous API reads cached per data version (measurements.page_cache).
NGCC_PAGE_CACHE = _env_bool("NGCC_PAGE_CACHE", True)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# Where the shared reference material lives (read in place, never copied).
NGCC_SHARED_DIR = Path(os.environ.get("NGCC_SHARED_DIR", BASE_DIR.parent / "shared"))
# The campaign-to-campaign spread a box is assumed to have before its own history says otherwise
# (relative standard deviation), and how many campaign transitions that assumption is worth
# (measurements.uncertainty.campaign_spread; docs/timing.md).
NGCC_CAMPAIGN_SPREAD_PRIOR = float(
    os.environ.get("NGCC_CAMPAIGN_SPREAD_PRIOR", DEFAULT_CAMPAIGN_SPREAD_PRIOR)
)
NGCC_CAMPAIGN_SPREAD_PRIOR_WEIGHT = float(
    os.environ.get("NGCC_CAMPAIGN_SPREAD_PRIOR_WEIGHT", DEFAULT_CAMPAIGN_SPREAD_PRIOR_WEIGHT)
)
for _name in ("NGCC_CAMPAIGN_SPREAD_PRIOR", "NGCC_CAMPAIGN_SPREAD_PRIOR_WEIGHT"):
    if not 0 <= globals()[_name] < float("inf"):
        raise ImproperlyConfigured(f"{_name} must be a finite number >= 0")
# Largest file an importer reads (harness records, KAT logs, catalogs), in bytes.
NGCC_IMPORT_MAX_FILE_BYTES = int(os.environ.get("NGCC_IMPORT_MAX_FILE_BYTES", 16 * 1024 * 1024))
# Working folder for builds, KAT runs and driver output on a target box.
NGCC_WORK_DIR = Path(os.environ.get("NGCC_WORK_DIR", BASE_DIR / "var"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAdminUser"],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_CLASSES": ["measurements.api.throttling.AnonymousClientThrottle"],
    "DEFAULT_THROTTLE_RATES": {"anon": os.environ.get("NGCC_ANON_THROTTLE", "1000/minute")},
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "NGCC Perf API",
    "DESCRIPTION": "Raw trials and every figure of the NGCC Perf pages.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and ReDoc are served from drf-spectacular-sidecar's static files (no CDN).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "KatStatusEnum": "measurements.models.KatStatus",
        "CampaignStatusEnum": "measurements.models.Campaign.Status",
    },
}

# django-q2: ORM broker by default, Redis when REDIS_URL is set.
NGCC_CLUSTER = os.environ.get("NGCC_CLUSTER", "default")
Q_CLUSTER = {
    # One name for the whole site (it keys signing and Redis); one queue per box.
    "name": os.environ.get("NGCC_Q_NAME", "ngcc"),
    "cluster_name": NGCC_CLUSTER,
    "workers": int(os.environ.get("NGCC_Q_WORKERS", "1")),
    "timeout": int(os.environ.get("NGCC_Q_TIMEOUT", "3600")),
    "retry": int(os.environ.get("NGCC_Q_RETRY", "3700")),
    "max_attempts": 0,
    "ack_failures": True,
    "catch_up": False,
    "poll": 0.2,
    "label": "Django Q2",
}
if os.environ.get("REDIS_URL"):
    Q_CLUSTER["redis"] = os.environ["REDIS_URL"]
else:
    Q_CLUSTER["orm"] = "default"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("NGCC_LOG_LEVEL", "WARNING")},
}

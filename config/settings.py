"""Settings, read from the environment (see README, "Settings").

Redis: with REDIS_URL unset the project starts its own redis-server with data under var/redis. The
test runner never uses REDIS_URL nor var/: it starts a server of its own, or uses REDIS_TEST_URL.
"""

import atexit
import os
import secrets
import shutil
import sys
import tempfile
from pathlib import Path

import dj_database_url

from config.embedded import embedded_url
from config.redis import connection_retry

BASE_DIR = Path(__file__).resolve().parent.parent
TESTING = sys.argv[1:2] == ["test"]


def private_folder(path: Path) -> Path:
    """``path`` created if missing and readable by its owner only (0700): it holds the database, the
    secret key, the Redis data and staged uploads. A folder this user does not own is left as it is."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_uid == os.getuid():
        path.chmod(0o700)
    return path


def private_file(path: Path) -> Path:
    """``path`` created empty if missing, readable and writable by its owner only (0600)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    if path.stat().st_uid == os.getuid():
        path.chmod(0o600)
    return path


VAR_DIR = private_folder(Path(os.environ.get("VAR_DIR", BASE_DIR / "var")))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def _development_secret() -> str:
    path = VAR_DIR / "secret_key"
    if not path.exists() or not path.read_text().strip():
        private_file(path).write_text(secrets.token_urlsafe(50))
    return private_file(path).read_text().strip()


SECRET_KEY = os.environ.get("SECRET_KEY") or _development_secret()
# Off unless asked for: `make run` serves as deployed, `make dev` sets DEBUG=1.
DEBUG = env_bool("DEBUG", False)
# HTTPS=1 when the dashboard is reached over TLS: secure cookies, HSTS and the redirect follow it,
# never DEBUG, so `make run` on http://127.0.0.1 signs in with DEBUG off.
HTTPS = env_bool("HTTPS", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

# --- Redis ---------------------------------------------------------------------
if TESTING:
    REDIS_URL = os.environ.get("REDIS_TEST_URL", "")
    REDIS_EMBEDDED_DIR = "" if REDIS_URL else tempfile.mkdtemp(prefix="rdash-test-")
else:
    REDIS_URL = os.environ.get("REDIS_URL", "")
    REDIS_EMBEDDED_DIR = "" if REDIS_URL else str(VAR_DIR / "redis")
REDIS_URL = REDIS_URL or embedded_url(REDIS_EMBEDDED_DIR)
REDIS_APPENDFSYNC = os.environ.get("REDIS_APPENDFSYNC", "everysec")  # embedded server only
REDIS_SOCKET_TIMEOUT = float(os.environ.get("REDIS_SOCKET_TIMEOUT", "5"))
REDIS_CONNECT_TIMEOUT = float(os.environ.get("REDIS_CONNECT_TIMEOUT", "2"))
# The catalog's partitions (docs/cluster.md): its products and reviews spread over this many hash
# tags, so a Redis Cluster spreads them over its primaries. 1 keeps the whole catalog in one slot.
# Fixed while data exists: changing it is an export and an import.
CATALOG_PARTITIONS = int(os.environ.get("CATALOG_PARTITIONS", "1"))

# A Redis whose maxmemory-policy can evict keys (anything but noeviction) silently drops records
# and index entries: /healthz answers 503, every page shows a banner, `serve` warns. Pages read the
# policy at most this often per process (the test runner reads it once per test, at its start).
EVICTION_CHECK_SECONDS = float(os.environ.get("EVICTION_CHECK_SECONDS", "3600" if TESTING else "30"))

# Staff activity and sign-in limits (the Redis login-system tutorial, the key-value design notes).
# How many reverse proxies in front of the dashboard append to X-Forwarded-For (config.forms.client_address);
# 0: the connection's own address, X-Forwarded-For (which anyone can send) ignored.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
# Failed sign-ins allowed per window: for one username from one address, and from one address
# whatever the username (higher: the people behind one office address share it).
SIGNIN_FAILURE_LIMIT = 5
SIGNIN_ADDRESS_FAILURE_LIMIT = int(os.environ.get("SIGNIN_ADDRESS_FAILURE_LIMIT", "30"))
SIGNIN_FAILURE_WINDOW = 300  # seconds
SIGNINS_KEPT = 50
EVENTS_MAXLEN = int(os.environ.get("EVENTS_MAXLEN", "1000"))

# Request bodies (config.middleware): the largest accepted, checked on Content-Length before
# anything reads the body; the default is the largest import upload (64 MiB) with room for the
# form around it. A visitor not signed in may post the sign-in form alone, and only this much.
REQUEST_BODY_LIMIT = int(os.environ.get("REQUEST_BODY_LIMIT", str(65 * 1024 * 1024)))
ANONYMOUS_BODY_LIMIT = 16 * 1024

# CMS: revisions kept per post; the oldest are trimmed in the save's own
# transaction. 0 keeps them all (a post's export line then grows with its saves).
CMS_REVISIONS_KEPT = int(os.environ.get("CMS_REVISIONS_KEPT", "100"))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "django_tasks",
    "django_tasks_db",
    "config.apps.ConfigConfig",
    "catalog",
    "school",
    "cms",
    "orgchart",
]

MIDDLEWARE = [
    "config.middleware.RequestBodyLimitMiddleware",  # first: from the headers, before anything reads the body
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.SecurityHeadersMiddleware",
    "config.middleware.TraceMiddleware",
    "config.middleware.RedisUnavailableMiddleware",
    "config.middleware.ContentionMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.middleware.AnonymousWriteMiddleware",  # before the CSRF check, which reads the body
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "config.middleware.PermissionMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "config.listing.PastEndMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "config.layout.layout",
                "config.exchange.context.interrupted_imports",
            ],
            # No "loaders": template_partials sets its own over Django's cached loader, so each
            # template is parsed once per process, with DEBUG on or off.
        },
    },
]

DATABASES = {"default": dj_database_url.config(default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
_database = DATABASES["default"]
if _database["ENGINE"] == "django.db.backends.sqlite3" and str(_database["NAME"]).startswith("/") and not TESTING:
    # Created here with mode 0600 (an empty file is a new database to SQLite), whose journal
    # files take the same mode: user accounts and password hashes are for their owner alone.
    private_file(Path(_database["NAME"]))
if TESTING and DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not SQLite's in-memory test database: a background worker the tests start as a process
    # of its own must see the jobs they enqueue.
    _test_db_dir = tempfile.mkdtemp(prefix="rdash-testdb-")
    atexit.register(shutil.rmtree, _test_db_dir, True)
    DATABASES["default"]["TEST"] = {"NAME": str(Path(_test_db_dir) / "test.sqlite3")}

# Background jobs (imports, exports, an upload's check): the backport of Django's tasks framework,
# with its database backend, so the queue lives in DATABASES and never depends on which Redis
# REDIS_URL names (one server or a cluster). `manage.py serve` runs the worker (`manage.py worker`).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# Uploads previewed but never confirmed are removed this many minutes after their check ended.
EXCHANGE_UPLOAD_MINUTES = int(os.environ.get("EXCHANGE_UPLOAD_MINUTES", "10"))
# A running job whose worker has not been heard of for this many seconds is taken as dead.
EXCHANGE_WORKER_SILENCE = int(os.environ.get("EXCHANGE_WORKER_SILENCE", "60"))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django's cache and sessions in Redis through django-redis, told apart from the
# domain keys by the "django:" prefix rather than by a database index.
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "django",
        "KEY_FUNCTION": "config.cachekeys.make_key",
        "OPTIONS": {
            "CLIENT_CLASS": "django_redis.client.DefaultClient",
            "REDIS_CLIENT_CLASS": "config.redis.traced.DjangoTracedRedis",
            "CONNECTION_FACTORY": "config.redis.DjangoConnectionFactory",  # a RedisCluster for a cluster URL
            "SOCKET_CONNECT_TIMEOUT": REDIS_CONNECT_TIMEOUT,
            "SOCKET_TIMEOUT": REDIS_SOCKET_TIMEOUT,
            "CONNECTION_POOL_KWARGS": {"retry": connection_retry()},
        },
    },
    # Rendered template fragments, kept in the process (reading one is no Redis round trip): parts that
    # change only with the code (the sidebar, the registered key patterns), and list rows, chips and
    # heads keyed by their own content (a row's values, a chip's count and link), so a changed row is
    # a new entry and an old one is never shown. A few thousand rows' HTML at most.
    "fragments": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "fragments",
        "OPTIONS": {"MAX_ENTRIES": 5000},
    },
}
SESSION_ENGINE = "config.sessions"
SESSION_CACHE_ALIAS = "default"
MESSAGE_STORAGE = "django.contrib.messages.storage.cookie.CookieStorage"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# ModelBackend reading a user's permissions with the user, in one query (config.roles).
AUTHENTICATION_BACKENDS = ["config.roles.RoleBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
# The currency prices are shown in ({{ price|money }}, config/templatetags/formats.py): an ISO 4217 code.
CURRENCY = os.environ.get("CURRENCY", "USD")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns about a missing one before the first collectstatic
# WhiteNoise serves the collected files (`manage.py serve` runs collectstatic): hashed names, gzip
# copies, a year's cache headers. Tests and DEBUG use the plain storage, which needs no collectstatic.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or TESTING
        else "config.staticfiles.StaticStorage"
    },
}
WHITENOISE_USE_FINDERS = True

# HTTPS=1 turns on what only works over TLS; `manage.py check --deploy` passes
# with it. Each can still be set on its own.
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", HTTPS)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", HTTPS)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # a probe on the plain-HTTP side of the proxy
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000" if HTTPS else "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY", False) else None
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# The Content-Security-Policy of every response (config.middleware.SecurityHeadersMiddleware):
# nothing inline, nothing from elsewhere but the catalog's product images over https, never framed.
CONTENT_SECURITY_POLICY = os.environ.get(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; img-src 'self' https:; object-src 'none'; frame-ancestors 'none'; "
    "base-uri 'self'; form-action 'self'",
)
CSRF_FAILURE_VIEW = "config.views.csrf_failure"
# The technical 500 page (DEBUG) and error reports mask a password inside any URL (REDIS_URL).
DEFAULT_EXCEPTION_REPORTER_FILTER = "config.reporting.RedactingExceptionReporterFilter"

TEST_RUNNER = "tests.runner.Runner"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}},
}

if TESTING:
    # Hashing cost is not what the tests measure; Django's docs advise a fast hasher for tests.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

"""Settings for the Skills Registry, read from the environment (docs/reference.md#environment)."""

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from skillsite.env import env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DJANGO_DEBUG", False)
# Unset is allowed here, so that commands which sign nothing (check_skills on an author's
# bare checkout, publish, migrate) run without it. Anything that signs refuses to: Django
# raises on reading an empty SECRET_KEY, the WSGI application refuses to load
# (skillsite/wsgi.py), and the system check registry.E006 stops every other command and
# `check --deploy` (docs/reference.md#environment).
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if not SECRET_KEY and DEBUG:
    SECRET_KEY = "insecure-debug-only-key"  # noqa: S105 - only ever used with DEBUG on

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "rest_framework",
    "skillsite",
    "catalog",
    "accounts",
    "mcpapi",
]

MIDDLEWARE = [
    # /mcp past the chain and back through its process_response (skillsite/fastlane.py).
    "skillsite.fastlane.McpLane",
    "django.middleware.security.SecurityMiddleware",
    "skillsite.errors.JsonErrorsMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "skillsite.urls"
WSGI_APPLICATION = "skillsite.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]

SQLITE_BUSY_TIMEOUT_SECONDS = env_float("SQLITE_BUSY_TIMEOUT_SECONDS", 30.0, minimum=0)


def database_from_url(url: str) -> dj_database_url.DBConfig:
    """One DATABASES entry from a URL, with the SQLite tuning serving relies on.

    WAL lets readers run beside a publishing writer; IMMEDIATE transactions take
    the write lock up front, so two writers queue on the busy timeout instead of
    failing on a lock upgrade.
    """
    config = dj_database_url.parse(url, conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0))
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config["CONN_MAX_AGE"] = 0 if config["NAME"] == ":memory:" else config["CONN_MAX_AGE"]
        config["OPTIONS"] = {
            "timeout": SQLITE_BUSY_TIMEOUT_SECONDS,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
        }
    return config


DATABASES = {"default": database_from_url(env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CACHE_URL = env_str("CACHE_URL")
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}}
elif CACHE_URL in ("", "locmem://"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    raise ImproperlyConfigured(f"CACHE_URL must be a redis:// URL or locmem://, got {CACHE_URL!r}")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

# The skills repository: --repo, else this, else the project directory (docs/reference.md#commands).
SKILLS_REPO_PATH = env_str("SKILLS_REPO_PATH") or str(BASE_DIR)

# Callers (docs/reference.md#callers-and-clearance).
SKILLS_READ_TOKENS = env_list("SKILLS_READ_TOKENS")
SKILLS_ZDR_TOKENS = env_list("SKILLS_ZDR_TOKENS")
ALLOWED_GITHUB_LOGINS = env_list("ALLOWED_GITHUB_LOGINS")
ZDR_GITHUB_LOGINS = env_list("ZDR_GITHUB_LOGINS")
GITHUB_API_URL = env_str("GITHUB_API_URL", "https://api.github.com").rstrip("/")
GITHUB_TIMEOUT_SECONDS = env_float("GITHUB_TIMEOUT_SECONDS", 5.0, minimum=0.1)
GITHUB_CACHE_SECONDS = env_int("GITHUB_CACHE_SECONDS", 300, minimum=0)
GITHUB_FAILURE_CACHE_SECONDS = env_int("GITHUB_FAILURE_CACHE_SECONDS", 30, minimum=0)
# GitHub calls one process makes at once; one more is 503 at once (docs/reference.md#callers).
GITHUB_MAX_CONCURRENT_CALLS = env_int("GITHUB_MAX_CONCURRENT_CALLS", 8, minimum=1)
MCP_ALLOWED_ORIGINS = env_list("MCP_ALLOWED_ORIGINS")

# The largest request body /mcp will read (docs/reference.md#limits: 1 MiB).
MCP_MAX_BODY_BYTES = env_int("MCP_MAX_BODY_BYTES", 1024 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MCP_MAX_BODY_BYTES

# Requests per minute one caller (an identity, never a token) may make to /mcp; 0 turns the
# limit off. Counted in the cache: set CACHE_URL to Redis so that every worker and host shares it.
MCP_RATE_LIMIT_PER_MINUTE = env_int("MCP_RATE_LIMIT_PER_MINUTE", 0, minimum=0)

# How long a 2026-07-28 client (and a skills-extension host) may reuse a list or a read before
# asking again: the ttlMs of cacheable results (docs/reference.md#mcp-methods). 0: never reuse.
MCP_CACHE_TTL_SECONDS = env_int("MCP_CACHE_TTL_SECONDS", 60, minimum=0)

# How long `publish` waits for another publish to finish before giving up.
PUBLISH_LOCK_TIMEOUT_SECONDS = env_float("PUBLISH_LOCK_TIMEOUT_SECONDS", 300.0, minimum=0)
# Tests only: stop a publish at a named point of its store phase (catalog/checkpoints.py).
PUBLISH_PAUSE_AT = env_str("SKILLS_PUBLISH_PAUSE_AT")
PUBLISH_PAUSE_SECONDS = env_float("SKILLS_PUBLISH_PAUSE_SECONDS", 60.0, minimum=0)

# Behind a reverse proxy (docs/reference.md#environment): the forwarded-proto header is trusted
# only when named here, e.g. DJANGO_PROXY_SSL_HEADER=X-Forwarded-Proto (the proxy must set it to
# "https" and strip any copy a client sends).
PROXY_SSL_HEADER = env_str("DJANGO_PROXY_SSL_HEADER").strip()
if PROXY_SSL_HEADER:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + PROXY_SSL_HEADER.upper().replace("-", "_"), "https")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
CSRF_FAILURE_VIEW = "skillsite.errors.csrf_failure"  # JSON, not Django's HTML page
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
LOG_FORMAT = env_str("LOG_FORMAT", "json")
if LOG_FORMAT not in ("json", "plain"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be json or plain, got {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "skillsite.logs.JsonFormatter"},
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # Django's own request logger would repeat what the access log says (and 4xx are expected).
    "loggers": {"django.request": {"level": "ERROR"}},
}

# --- OAuth for web connectors (docs/reference.md#oauth) -----------------------------------------
# Off unless GITHUB_OAUTH_CLIENT_ID, GITHUB_OAUTH_CLIENT_SECRET and PUBLIC_BASE_URL are all set.
# Some but not all is the system check registry.E004, which also stops gunicorn (skillsite/wsgi.py).
# The apps are installed either way (one database schema); the routes answer 404 while it is off,
# and the session middleware is added only when it is on (the sign-in and consent pages use it,
# /mcp never does).
from oauth import conf as oauth_conf  # noqa: E402 - pure helpers, no Django imports

GITHUB_OAUTH_CLIENT_ID = env_str("GITHUB_OAUTH_CLIENT_ID").strip()
GITHUB_OAUTH_CLIENT_SECRET = env_str("GITHUB_OAUTH_CLIENT_SECRET").strip()
PUBLIC_BASE_URL = env_str("PUBLIC_BASE_URL").strip().rstrip("/")
GITHUB_OAUTH_URL = env_str("GITHUB_OAUTH_URL", "https://github.com").strip().rstrip("/")
OAUTH_ALLOWED_REDIRECT_HOSTS = env_list(
    "OAUTH_ALLOWED_REDIRECT_HOSTS", ["claude.ai", "claude.com", "chatgpt.com"]
)
OAUTH_ENABLED = bool(GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET and PUBLIC_BASE_URL)
OAUTH_RESOURCE = f"{PUBLIC_BASE_URL}/mcp" if OAUTH_ENABLED else ""
OAUTH_RESOURCE_METADATA_URL = (
    f"{PUBLIC_BASE_URL}/.well-known/oauth-protected-resource/mcp" if OAUTH_ENABLED else ""
)
INSTALLED_APPS += ["django.contrib.sessions", "oauth2_provider", "oauth"]
OAUTH2_PROVIDER = oauth_conf.provider_settings(PUBLIC_BASE_URL if OAUTH_ENABLED else "")
# http stays in DOT's redirect schemes for loopback clients only; oauth.conf.redirect_uri_allowed
# refuses http anywhere else (at registration and at authorization), so DOT's warning is moot.
SILENCED_SYSTEM_CHECKS = [*globals().get("SILENCED_SYSTEM_CHECKS", []), "oauth2_provider.W008"]
LOGIN_URL = "/oauth/github/login/"
SESSION_COOKIE_AGE = oauth_conf.SIGN_IN_SESSION_SECONDS
if OAUTH_ENABLED:
    MIDDLEWARE = oauth_conf.with_session_middleware(MIDDLEWARE)

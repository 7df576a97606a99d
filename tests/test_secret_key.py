"""DJANGO_SECRET_KEY may be unset for commands that sign nothing (check_skills, publish), but
never for the server (docs/reference.md#environment): the WSGI application refuses to load,
gunicorn does not start, every command that runs the system checks stops on registry.E006,
and `check --deploy` flags it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from skillsite.checks import check_secret_key_set, secret_key_errors
from tests.support.databases import TempDatabase
from tests.support.gunicorn import GunicornServer
from tests.support.project import MANAGE, PROJECT_DIR

# What `make lint` runs `check --deploy` with, but without a secret key.
PRODUCTION_LIKE = {
    "DJANGO_ALLOWED_HOSTS": "skills.example.com",
    "DJANGO_PROXY_SSL_HEADER": "X-Forwarded-Proto",
    "DJANGO_SECURE_SSL_REDIRECT": "1",
    "DJANGO_SECURE_HSTS_SECONDS": "31536000",
    "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "DJANGO_SECURE_HSTS_PRELOAD": "1",
    "SKILLS_READ_TOKENS": "a-token",
    "DATABASE_URL": "sqlite:///:memory:",
}


def without_key(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "TEST_"))}
    return {**env, "DJANGO_SETTINGS_MODULE": "skillsite.settings", **extra}


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=PROJECT_DIR, capture_output=True, text=True, timeout=120
    )


def test_the_check_passes_with_a_key(settings) -> None:  # type: ignore[no-untyped-def]
    settings.SECRET_KEY = "a-long-random-value"
    assert check_secret_key_set() == []


def test_the_check_is_an_error_without_a_key(settings) -> None:  # type: ignore[no-untyped-def]
    settings.SECRET_KEY = ""
    [error] = check_secret_key_set()
    assert (error.id, error.is_serious()) == ("registry.E006", True)
    assert secret_key_errors() == [f"registry.E006: {error.msg}"]


def test_the_wsgi_application_refuses_to_load_without_a_key() -> None:
    done = run("-c", "import skillsite.wsgi", env=without_key())
    assert done.returncode != 0
    assert f"{ImproperlyConfigured.__name__}: registry.E006: DJANGO_SECRET_KEY is not set" in done.stderr


def test_the_wsgi_application_loads_with_a_key() -> None:
    done = run("-c", "import skillsite.wsgi", env=without_key(DJANGO_SECRET_KEY="a-long-random-value"))
    assert (done.returncode, done.stderr) == (0, "")


def test_commands_that_run_the_system_checks_stop_without_a_key() -> None:
    done = run(MANAGE, "check", env=without_key(DATABASE_URL="sqlite:///:memory:"))
    assert done.returncode != 0
    assert "(registry.E006) DJANGO_SECRET_KEY is not set" in done.stderr


def test_check_deploy_flags_a_missing_key() -> None:
    done = run(MANAGE, "check", "--deploy", "--fail-level", "WARNING", env=without_key(**PRODUCTION_LIKE))
    assert done.returncode != 0
    assert "(registry.E006)" in done.stderr
    assert "(security.W009)" in done.stderr


def test_debug_mode_runs_without_a_key() -> None:
    done = run(MANAGE, "check", env=without_key(DJANGO_DEBUG="1", DATABASE_URL="sqlite:///:memory:"))
    assert done.returncode == 0, done.stderr


@pytest.mark.e2e
def test_gunicorn_refuses_to_start_without_a_key(tmp_path: Path) -> None:
    with TempDatabase(tmp_path / "db") as database:
        env = {key: value for key, value in database.env().items() if key != "DJANGO_SECRET_KEY"}
        server = GunicornServer(env, workers=1, log_path=tmp_path / "gunicorn.log")
        with pytest.raises(RuntimeError, match="exited early"):
            server.start(timeout=60)
    assert "registry.E006: DJANGO_SECRET_KEY is not set" in (tmp_path / "gunicorn.log").read_text()

"""OAuth is all on or all off (docs/reference.md#oauth): a half configuration is a system check Error that
`manage.py check` reports and that stops gunicorn."""

import subprocess
import sys

import pytest

from oauth.checks import check_oauth_configuration
from oauth.conf import base_url_problem, redirect_uri_allowed, with_session_middleware
from tests.support.databases import TempDatabase
from tests.support.gunicorn import GunicornServer
from tests.support.project import MANAGE, PROJECT_DIR

FULL = {
    "GITHUB_OAUTH_CLIENT_ID": "Iv1.x",
    "GITHUB_OAUTH_CLIENT_SECRET": "secret",
    "PUBLIC_BASE_URL": "https://skills.example.com",
}


def ids(settings, **values: str) -> list[str]:
    for name in FULL:
        setattr(settings, name, values.get(name, ""))
    return [message.id for message in check_oauth_configuration()]


def test_all_or_nothing_passes(settings) -> None:
    assert ids(settings) == []
    assert ids(settings, **FULL) == []


@pytest.mark.parametrize("missing", sorted(FULL))
def test_some_but_not_all_is_an_error(settings, missing: str) -> None:
    values = {name: value for name, value in FULL.items() if name != missing}
    assert ids(settings, **values) == ["registry.E004"]


@pytest.mark.parametrize(
    "url",
    [
        "http://skills.example.com",
        "https://skills.example.com/registry",
        "https://u@skills.example.com",
        "ftp://x",
    ],
)
def test_a_public_base_url_that_cannot_be_the_issuer_is_an_error(settings, url: str) -> None:
    assert ids(settings, **{**FULL, "PUBLIC_BASE_URL": url}) == ["registry.E005"]


def test_loopback_http_is_a_valid_public_base_url() -> None:
    assert base_url_problem("http://127.0.0.1:8000") is None
    assert base_url_problem("http://localhost:8000") is None
    assert base_url_problem("https://skills.example.com") is None


@pytest.mark.parametrize(
    ("uri", "allowed"),
    [
        ("https://claude.ai/api/mcp/auth_callback", True),
        ("https://claude.com/api/mcp/auth_callback", True),
        ("https://chatgpt.com/connector/oauth/abc", True),
        ("https://CHATGPT.com/connector/oauth/abc", True),
        ("http://127.0.0.1:51234/callback", True),
        ("http://localhost/callback", True),
        ("http://[::1]:8080/cb", True),
        ("http://chatgpt.com/connector/oauth/abc", False),
        ("https://chatgpt.com:8443/connector/oauth/abc", False),
        ("https://evil.chatgpt.com/cb", False),
        ("https://chatgpt.com.evil.example/cb", False),
        ("https://user@chatgpt.com/cb", False),
        ("https://chatgpt.com/cb#fragment", False),
        ("https://127.0.0.1/cb", False),
        ("myapp://callback", False),
        ("javascript:alert(1)", False),
        ("", False),
    ],
)
def test_the_redirect_rule(uri: str, allowed: bool) -> None:
    assert redirect_uri_allowed(uri, ["claude.ai", "claude.com", "chatgpt.com"]) is allowed


def test_the_session_middleware_goes_where_it_must() -> None:
    base = [
        "django.middleware.security.SecurityMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    ]
    assert with_session_middleware(base) == [
        "django.middleware.security.SecurityMiddleware",
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    ]


HALF = {"GITHUB_OAUTH_CLIENT_ID": "Iv1.x", "GITHUB_OAUTH_CLIENT_SECRET": "secret"}


def test_manage_py_check_reports_a_half_configuration(tmp_path) -> None:
    with TempDatabase(tmp_path) as database:
        done = subprocess.run(
            [sys.executable, MANAGE, "check"],
            env=database.env(**HALF),
            cwd=PROJECT_DIR,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode != 0
    assert "registry.E004" in done.stderr


@pytest.mark.e2e
def test_gunicorn_refuses_to_start_half_configured(tmp_path) -> None:
    with TempDatabase(tmp_path / "db") as database:
        server = GunicornServer(database.env(**HALF), workers=1, log_path=tmp_path / "gunicorn.log")
        with pytest.raises(RuntimeError, match="exited early"):
            server.start(timeout=60)
    assert "registry.E004" in (tmp_path / "gunicorn.log").read_text()

"""GET / : the landing page, its JSON twin, and /favicon.ico, through Django's test client."""

import base64
import hashlib
import json
import re
from collections.abc import Callable

import pytest
from django.test import Client

from skillsite import connect
from tests.landing.pagetext import code_blocks
from tests.support.landing import SKILL_WORDS, add_landing_skills
from tests.support.repos import SkillRepo
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

pytestmark = pytest.mark.django_db

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


def get_html(client: Client | None = None, **headers: str) -> str:
    response = (client or Client()).get("/", headers={"Accept": BROWSER_ACCEPT, **headers})
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/html; charset=utf-8"
    return response.content.decode()


def get_json(**headers: str) -> dict:
    response = Client().get("/", headers={"Accept": "application/json", **headers})
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    return response.json()


def test_the_page_names_the_registry_its_mcp_url_and_links_to_healthz(published: str) -> None:
    html = get_html()
    assert "<title>Skills Registry</title>" in html
    assert "<h1>Skills Registry</h1>" in html
    assert '<code class="endpoint" id="mcp-url">http://testserver/mcp</code>' in html
    assert '<a href="/healthz">http://testserver/healthz</a>' in html


def test_the_page_names_the_active_snapshot_and_when_it_was_published(published: str) -> None:
    health = Client().get("/healthz").json()
    html = get_html()
    assert f'<code class="sha" id="registry-sha">{published}</code>' in html
    seconds = health["published_at"][:19]
    assert f'<time datetime="{seconds}+00:00">{seconds.replace("T", " ")} UTC</time>' in html
    assert "Nothing published yet" not in html


def test_before_the_first_publish_the_page_says_nothing_is_published() -> None:
    html = get_html()
    assert "Nothing published yet" in html
    assert "<time" not in html
    facts = get_json()
    assert facts["registry_sha"] is None
    assert facts["published_at"] is None
    assert facts["mcp_url"] == "http://testserver/mcp"


def test_json_gives_the_same_facts_to_a_client_that_asks_for_it(published: str) -> None:
    health = Client().get("/healthz").json()
    facts = get_json()
    assert list(facts) == ["name", "registry_sha", "published_at", "mcp_url", "clients"]
    assert facts["name"] == "Skills Registry"
    assert facts["registry_sha"] == published
    assert facts["published_at"] == health["published_at"]
    assert facts["mcp_url"] == "http://testserver/mcp"
    assert facts["clients"] == [
        {"name": client.name, "command": client.command} for client in connect.clients(facts["mcp_url"])
    ]
    assert [client["name"] for client in facts["clients"]] == [
        "Claude Code",
        "Codex",
        "OpenCode",
        "Any MCP client (official SDKs, curl)",
    ]


@pytest.mark.parametrize(
    ("accept", "kind"),
    [
        (None, "text/html; charset=utf-8"),
        ("*/*", "text/html; charset=utf-8"),
        (BROWSER_ACCEPT, "text/html; charset=utf-8"),
        ("application/json", "application/json"),
        ("application/json, text/event-stream", "application/json"),
        ("text/html;q=0.5, application/json", "application/json"),
        ("application/json;q=0.1, text/html", "text/html; charset=utf-8"),
    ],
)
def test_the_accept_header_chooses_html_or_json(accept: str | None, kind: str) -> None:
    headers = {"Accept": accept} if accept is not None else {}
    response = Client().get("/", headers=headers)
    assert response.status_code == 200
    assert response["Content-Type"] == kind
    assert response["Vary"] == "Accept"


def test_every_connect_command_carries_the_url_of_the_host_asked(published: str) -> None:
    client = Client(HTTP_HOST="localhost:8123")
    url = "http://localhost:8123/mcp"
    html = get_html(client)
    facts = client.get("/", headers={"Accept": "application/json"}).json()
    assert facts["mcp_url"] == url
    assert 'id="mcp-url">http://localhost:8123/mcp<' in html
    for entry in facts["clients"]:
        assert url in entry["command"], entry
        assert "testserver" not in entry["command"]
    shown = code_blocks(html)
    assert shown == [connect.export_token("<your token>"), *(c.command for c in connect.clients(url))]


def test_https_is_shown_only_when_the_configured_proxy_header_says_so(settings) -> None:
    settings.ALLOWED_HOSTS = ["skills.example.com"]
    proxied = {"Host": "skills.example.com", "X-Forwarded-Proto": "https"}
    assert get_json(**proxied)["mcp_url"] == "http://skills.example.com/mcp"
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert get_json(**proxied)["mcp_url"] == "https://skills.example.com/mcp"
    assert get_json(Host="skills.example.com")["mcp_url"] == "http://skills.example.com/mcp"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80"])
def test_a_host_outside_allowed_hosts_is_refused(host: str) -> None:
    response = Client(HTTP_HOST=host).get("/", headers={"Accept": BROWSER_ACCEPT})
    assert response.status_code == 400
    assert b"evil.example/mcp" not in response.content


def test_a_host_that_could_break_out_of_the_markup_is_refused_even_with_any_host_allowed(settings) -> None:
    settings.ALLOWED_HOSTS = ["*"]
    for host in ['x"><h1>owned</h1>', "x'onload=1", "a b", "x<y"]:
        response = Client(HTTP_HOST=host).get("/")
        assert response.status_code == 400, host
        assert b"owned" not in response.content


def test_the_page_shows_no_token_and_nothing_of_any_skill(published: str) -> None:
    html = get_html(Authorization=f"Bearer {ZDR_TOKEN}")
    text = html + json.dumps(get_json(Authorization=f"Bearer {ZDR_TOKEN}"))
    for secret in (READ_TOKEN, ZDR_TOKEN, *SKILL_WORDS):
        assert secret not in text, secret
    assert "$SKILLS_TOKEN" in html


def test_the_page_is_the_same_whatever_the_number_of_skills(
    skill_repo: SkillRepo, publish_repo: Callable[[SkillRepo, str], str]
) -> None:
    """Nothing on the page counts skills: adding a ZDR skill changes only the snapshot shown."""

    def without_snapshot(text: str, sha: str) -> str:
        text = text.replace(sha, "SHA")
        return re.sub(r"<time [^>]*>[^<]*</time>", "<time>", text)

    add_landing_skills(skill_repo, with_zdr=False)
    first = skill_repo.commit("one skill")
    publish_repo(skill_repo, first)
    before = without_snapshot(get_html(), first), get_json()
    add_landing_skills(skill_repo, with_zdr=True)
    second = skill_repo.commit("and a ZDR skill")
    publish_repo(skill_repo, second)
    after = without_snapshot(get_html(), second), get_json()
    assert after[0] == before[0]
    assert {**after[1], "registry_sha": None, "published_at": None} == {
        **before[1],
        "registry_sha": None,
        "published_at": None,
    }
    assert after[1]["registry_sha"] == second


def test_the_page_needs_no_authentication_and_is_never_cached(published: str) -> None:
    for accept in (BROWSER_ACCEPT, "application/json"):
        response = Client().get("/", headers={"Accept": accept})
        assert response.status_code == 200
        assert response["Cache-Control"] == "no-store"


def test_the_page_carries_the_sites_security_headers_and_a_strict_policy(published: str) -> None:
    response = Client().get("/", headers={"Accept": BROWSER_ACCEPT})
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    policy = dict(
        part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";") if part.strip()
    )
    assert policy["default-src"] == "'none'"
    assert policy["img-src"] == "data:"
    assert policy["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    html = response.content.decode()
    [style] = re.findall(r"<style>(.*?)</style>", html, flags=re.S)
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert policy["style-src"] == f"'sha256-{digest}'", "the policy must allow exactly the page's style"


def test_the_page_is_self_contained(published: str) -> None:
    html = get_html()
    assert "<script" not in html
    assert " src=" not in html
    assert " style=" not in html, "an inline style attribute would be refused by the page's policy"
    assert "@import" not in html and "url(" not in html
    links = re.findall(r"<link [^>]*>", html)
    assert links == [links[0]] and 'rel="icon" href="data:image/svg+xml,' in links[0]
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert all(href == "/healthz" or href.startswith("data:") for href in hrefs), hrefs


def test_head_answers_like_get_without_a_body(published: str) -> None:
    response = Client().head("/", headers={"Accept": BROWSER_ACCEPT})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert response.content == b""


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete", "options"])
@pytest.mark.parametrize("path", ["/", "/favicon.ico"])
def test_other_methods_are_refused_with_405_and_allow(method: str, path: str) -> None:
    # CSRF checks on, as in production: the refusal is about the method, not a forgery.
    response = getattr(Client(enforce_csrf_checks=True), method)(path)
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


def test_the_favicon_is_an_empty_204() -> None:
    for response in (Client().get("/favicon.ico"), Client().head("/favicon.ico")):
        assert response.status_code == 204
        assert response.content == b""

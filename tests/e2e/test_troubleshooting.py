"""docs/client-setup.md's troubleshooting table against a real gunicorn: for every row, the
request that causes it gets the status the row names and every `quoted` piece of its
answer (in the headers, the body, or the connection error). One server for the module: its
empty database answers REGISTRY_EMPTY first, then the standard skills are published."""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.support.databases import TempDatabase
from tests.support.e2e import server_env
from tests.support.github_standin import HANG, GitHubStandIn, special
from tests.support.gunicorn import GunicornServer
from tests.support.processes import free_port
from tests.support.project import PROJECT_DIR
from tests.support.standard import build_standard_repo
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

pytestmark = pytest.mark.e2e

DOC = PROJECT_DIR / "docs" / "client-setup.md"
ZDR_SKILL = "secret-ops"  # the standard repository's required_zdr skill
GITHUB_TIMEOUT_SECONDS = 1
MODERN = "2026-07-28"


@dataclass(frozen=True)
class Row:
    symptom: str
    answer: str
    fix: str

    @property
    def status(self) -> int | None:
        found = re.search(r"HTTP (\d{3})", self.answer)
        return int(found.group(1)) if found else None

    @property
    def quoted(self) -> list[str]:
        return re.findall(r"`([^`]+)`", self.answer)


def said(piece: str, answer: "Seen") -> bool:
    """`piece` is in what the answer said; a `Name: value` piece may also match a header
    whose name is spelt in another case (`seen` lower-cases names; HTTP ignores their case)."""
    as_header = re.sub(r"^[A-Za-z-]+(?=: )", lambda name: name.group().lower(), piece)
    return piece in answer.text or as_header in answer.text.split("\n\n")[0]


def troubleshooting_rows() -> list[Row]:
    section = DOC.read_text().split("## Troubleshooting", 1)[1]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if line.startswith("| ") and len(cells) == 3 and cells[0] != "symptom":
            rows.append(Row(*cells))
    return rows


@dataclass(frozen=True)
class Seen:
    """What one request got: its status (None: no HTTP answer) and everything it said, as text."""

    status: int | None
    text: str


def seen(response: httpx.Response) -> Seen:
    headers = "\n".join(f"{name.lower()}: {value}" for name, value in response.headers.items())
    return Seen(response.status_code, f"{headers}\n\n{response.text}")


@dataclass
class Troubles:
    url: str
    mcp_url: str
    standin: GitHubStandIn
    empty_answer: Seen  # the tool call answered before anything was published

    def post(self, token: str | None, message: dict[str, Any] | None = None, **headers: str) -> Seen:
        sent = {"Accept": "application/json, text/event-stream", **headers}
        if token is not None:
            sent["Authorization"] = f"Bearer {token}".strip()
        return seen(httpx.post(self.mcp_url, json=message or _call("skills_list"), headers=sent, timeout=30))


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


def _modern(troubles: Troubles, version_header: str, meta_version: str) -> Seen:
    """A 2026-07-28 server/discover whose header and _meta name these versions."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": meta_version,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    message = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}
    return troubles.post(
        READ_TOKEN, message, **{"MCP-Protocol-Version": version_header, "Mcp-Method": "server/discover"}
    )


@pytest.fixture(scope="module")
def troubles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Troubles]:
    workdir = tmp_path_factory.mktemp("troubleshooting")
    repo = build_standard_repo(workdir / "repo")
    with GitHubStandIn(hang_seconds=10) as standin, TempDatabase(workdir / "db") as database:
        env = server_env(
            database,
            GITHUB_API_URL=standin.url,
            ALLOWED_GITHUB_LOGINS="alice",
            GITHUB_TIMEOUT_SECONDS=str(GITHUB_TIMEOUT_SECONDS),
            LOG_FORMAT="plain",
        )
        database.manage_ok("migrate", "--noinput", "-v", "0", env=env)
        with GunicornServer(env, workers=1, log_path=workdir / "gunicorn.log") as server:
            empty = Troubles(server.url, server.mcp_url, standin, Seen(None, "")).post(READ_TOKEN)
            database.manage_ok("publish", "HEAD", "--repo", str(repo.root), env=env)
            yield Troubles(server.url, server.mcp_url, standin, empty)


def _refused_connection(_: Troubles) -> list[Seen]:
    try:
        httpx.post(f"http://127.0.0.1:{free_port()}/mcp", json=_call("skills_list"), timeout=5)
    except httpx.ConnectError as error:
        return [Seen(None, str(error))]
    raise AssertionError("a free port answered")


def _github_login_not_allowed(troubles: Troubles) -> list[Seen]:
    token = "ghp_" + "m" * 36
    troubles.standin.add_user(token, "mallory")
    return [troubles.post(token)]


def _wrong_path(troubles: Troubles) -> list[Seen]:
    auth = {"Authorization": f"Bearer {READ_TOKEN}"}
    return [
        seen(httpx.post(f"{troubles.mcp_url}/", json=_call("skills_list"), headers=auth, timeout=10)),
        seen(httpx.post(f"{troubles.url}/sse", json=_call("skills_list"), headers=auth, timeout=10)),
    ]


def _sse_transport(troubles: Troubles) -> list[Seen]:
    headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {READ_TOKEN}"}
    return [seen(httpx.get(troubles.mcp_url, headers=headers, timeout=10))]


def _unknown_host(troubles: Troubles) -> list[Seen]:
    return [troubles.post(READ_TOKEN, Host="skills-box.lan:8000")]


def _hidden_skill(troubles: Troubles) -> list[Seen]:
    cleared = troubles.post(ZDR_TOKEN, _call("skills_get", id=ZDR_SKILL))
    assert cleared.status == 200 and "SKILL_NOT_FOUND" not in cleared.text, "a cleared token sees it"
    return [troubles.post(READ_TOKEN, _call("skills_get", id=ZDR_SKILL))]


# The requests behind each row, by the row's symptom.
CASES: dict[str, Callable[[Troubles], list[Seen]]] = {
    "the client cannot connect at all": _refused_connection,
    '"needs authentication", or 401 with no reason': lambda t: [t.post(None)],
    # A mistyped token, and what a command run with SKILLS_TOKEN empty sends (a bare "Bearer").
    "401 with a reason": lambda t: [t.post("local-mistyped"), t.post("")],
    "403 from a browser-based client": lambda t: [t.post(READ_TOKEN, Origin="https://elsewhere.example")],
    "403 with a GitHub token": _github_login_not_allowed,
    "503 with a GitHub token": lambda t: [t.post(special(HANG))],
    "404": _wrong_path,
    "405": _sse_transport,
    "400 from another machine": _unknown_host,
    "tool calls answer an error": lambda t: [t.empty_answer],
    "a skill others see is missing": _hidden_skill,
    "400 from a 2026-07-28 client": lambda t: [_modern(t, MODERN, "2025-11-25")],
    "400 naming versions": lambda t: [_modern(t, "v999.0.0", "v999.0.0")],
}


def test_every_row_of_the_table_has_its_check_and_every_check_its_row() -> None:
    assert [row.symptom for row in troubleshooting_rows()] == list(CASES)


@pytest.mark.parametrize("symptom", list(CASES))
def test_the_registry_answers_what_the_troubleshooting_row_says(troubles: Troubles, symptom: str) -> None:
    row = next(row for row in troubleshooting_rows() if row.symptom == symptom)
    answers = CASES[symptom](troubles)
    assert answers
    for answer in answers:
        assert answer.status == row.status, (row, answer)
        for piece in row.quoted:
            assert said(piece, answer), (piece, answer.text[:1000])

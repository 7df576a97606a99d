"""The ZDR leak test's transcript (tests/mcpapi/test_zdr_leaks.py): one fixed run of every
tool, resource method and skills-extension call, recorded byte for byte, and the ways to
compare two runs or search one for a ZDR skill's words."""

import itertools
import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.core import signing

from mcpapi import cursors
from tests.mcpapi.zdr_skills import NEVER_EXISTED, ZDR_IDS, ZDR_SKILLS
from tests.support.mcp import McpClient, ModernMcp
from tests.support.tokens import ZDR_TOKEN

pytestmark = pytest.mark.django_db


VERSION = "2025-11-25"
CLIENT = {"name": "zdr-leak-test", "version": "1"}


@dataclass(frozen=True)
class Exchange:
    request: bytes
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def reply(self) -> dict[str, Any]:
        return json.loads(self.body)

    def raw(self) -> bytes:
        """Every byte of the answer: header lines and body."""
        head = "".join(f"{name}: {value}\n" for name, value in self.headers.items())
        return head.encode() + b"\n" + self.body


class Recorder:
    """An MCP client that keeps every request and answer; `modern()` sends a request as a
    2026-07-28 client does (its errors come with 400)."""

    def __init__(self, token: str) -> None:
        self.client = McpClient(token)
        self.modern_client = ModernMcp(token)
        self.ids = itertools.count(1)
        self.exchanges: list[Exchange] = []

    def rpc(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self.ids), "method": method}
        if params is not None:
            message["params"] = params
        response = self.client.post(message)
        self._keep(json.dumps(message).encode(), response, 200)
        return self.exchanges[-1].reply

    def modern(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self.modern_client.send(method, params)
        request = json.dumps({"method": method, "params": params}).encode()
        self._keep(request, response, 400 if "error" in response.json() else 200)
        return self.exchanges[-1].reply

    def _keep(self, request: bytes, response: Any, status: int) -> None:
        exchange = Exchange(
            request=request,
            status=response.status_code,
            headers=dict(response.headers.items()),
            body=response.content,
        )
        self.exchanges.append(exchange)
        assert exchange.status == status, exchange

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = self.rpc(method, params)
        assert "error" not in reply, reply
        return reply["result"]

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """structuredContent of a tool result (a tool error included)."""
        result = self.result("tools/call", {"name": tool, "arguments": arguments})
        [content] = result["content"]
        assert json.loads(content["text"]) == result["structuredContent"]
        return result["structuredContent"]

    def pages(self, tool: str, key: str, **arguments: Any) -> list[list[dict[str, Any]]]:
        """Every page of a paginated tool, following next_cursor to the end."""
        pages = []
        cursor = None
        for _ in range(50):
            args = dict(arguments, cursor=cursor) if cursor else arguments
            structured = self.call(tool, **args)
            assert "error" not in structured, structured
            pages.append(structured[key])
            cursor = structured["next_cursor"]
            if cursor is None:
                return pages
        raise AssertionError(f"{tool} {arguments}: more than 50 pages")

    def skill_pages(self, send: Any) -> list[list[dict[str, Any]]]:
        """Every page of skills/list, sent by `send` (rpc or modern)."""
        pages = []
        params: dict[str, Any] = {}
        for _ in range(50):
            result = send("skills/list", params)["result"]
            pages.append(result["skills"])
            if "nextCursor" not in result:
                return pages
            params = {"cursor": result["nextCursor"]}
        raise AssertionError("skills/list: more than 50 pages")

    def resource_pages(self) -> list[list[dict[str, Any]]]:
        pages = []
        params: dict[str, Any] = {}
        for _ in range(50):
            result = self.result("resources/list", params)
            pages.append(result["resources"])
            if "nextCursor" not in result:
                return pages
            params = {"cursor": result["nextCursor"]}
        raise AssertionError("resources/list: more than 50 pages")


ALL_TAGS = ("review", "ops", "docs", "release", "zdrvaulttag")
TAG_FILTERS = (
    *([tag] for tag in ALL_TAGS),
    ["review", "ops"],
    ["REVIEW", "Ops"],  # compared case-insensitively
    ["review", "ops", "zdrvaulttag"],  # the first ZDR skill's whole tag set
    ["release", "ops"],  # the second's
)


def search_queries() -> list[str]:
    """The ZDR skills' ids, names, tags, keywords, description and body words, and markers;
    and queries that also match public skills."""
    queries = ["review", "ops incident", "checklist runbook", "steps"]
    for skill in ZDR_SKILLS:
        queries += [
            skill.id,
            skill.id.upper(),
            f"  {skill.id}  ",
            skill.name,
            skill.name.lower(),
            *skill.tags,
            " ".join(skill.tags),
            *skill.keywords,
            skill.description,
            skill.body,
            *skill.body.split()[1:4],
            *skill.markers,
            *skill.id.split("-"),
        ]
    return list(dict.fromkeys(query for query in queries if query.strip()))


def run_transcript(client: Recorder, sha: str) -> None:
    """Every method and tool, the same calls whatever the registry holds."""
    client.result("initialize", {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": CLIENT})
    client.result("ping")
    client.result("tools/list")

    for limit in (None, 1, 2, 3):
        extra = {} if limit is None else {"limit": limit}
        client.pages("skills_list", "skills", **extra)
        client.pages("skills_list", "skills", revision=sha, **extra)
        for tags in TAG_FILTERS:
            client.pages("skills_list", "skills", tags=tags, **extra)

    for query in search_queries():
        client.pages("skills_search", "results", query=query)
        client.pages("skills_search", "results", query=query, limit=1)
    for tags in TAG_FILTERS:
        client.pages("skills_search", "results", query="review steps", tags=tags, limit=1)
        client.pages("skills_search", "results", query=ZDR_IDS[0], tags=tags)

    for skill_id in [*ZDR_IDS, NEVER_EXISTED, "alpha"]:
        for call in not_found_calls(skill_id, sha):
            call(client)

    client.resource_pages()
    client.result("resources/templates/list")

    for send in (client.rpc, client.modern):
        for page in client.skill_pages(send):
            for skill in page:
                send("skills/get", {"uri": skill["uri"]})
    client.modern("server/discover")


def not_found_calls(skill_id: str, sha: str) -> list[Any]:
    """Every call naming one skill: for a ZDR or unknown id, each must be 'not found'."""
    paths = ["SKILL.md", "references/notes.md", "references/a.md", "scripts/check.sh"]
    for skill in ZDR_SKILLS:
        paths += [*skill.files, *skill.omitted]
    calls: list[Any] = [
        lambda c: c.call("skills_get", id=skill_id),
        lambda c: c.call("skills_get", id=skill_id, revision=sha),
        lambda c: c.call("skills_get", id=skill_id, revision=sha[:7]),
    ]
    for path in dict.fromkeys(paths):
        calls += [
            lambda c, path=path: c.call("skills_get_file", id=skill_id, path=path),
            lambda c, path=path: c.call("skills_get_file", id=skill_id, path=path, revision=sha),
            lambda c, path=path: c.rpc("resources/read", {"uri": f"skill://{skill_id}/{path}"}),
        ]
    for send in ("rpc", "modern"):
        calls += [
            lambda c, send=send: getattr(c, send)("skills/get", {"uri": f"skill://{skill_id}/SKILL.md"}),
            lambda c, send=send: getattr(c, send)("skills/get", {"uri": f"skill://{skill_id}/"}),
            lambda c, send=send: getattr(c, send)("resources/read", {"uri": f"skill://{skill_id}/SKILL.md"}),
        ]
    calls += [
        lambda c: c.call("skills_get_file", id=skill_id, path="references/nothing-here.md"),
        lambda c: c.call("skills_get_file", id=skill_id, path="../SKILL.md"),
        lambda c: c.call("skills_get_file", id=skill_id, path="SKILL.md", cursor="not-a-cursor"),
        lambda c: c.rpc("resources/read", {"uri": f"skill://{skill_id}"}),
        lambda c: c.rpc("resources/read", {"uri": f"skill://{skill_id}/"}),
        lambda c: c.rpc("resources/read", {"uri": f"skill://{skill_id}/references/nothing-here.md"}),
    ]
    return calls


def cleared_facts() -> dict[str, list[str]]:
    """What a cleared caller learns of each ZDR skill: its content_hash and file digests
    (to look for in uncleared answers), read from the active registry itself."""
    client = Recorder(ZDR_TOKEN)
    facts = {}
    for skill in ZDR_SKILLS:
        got = client.call("skills_get", id=skill.id)
        assert "error" not in got, got
        facts[skill.id] = [got["metadata"]["content_hash"], *(entry["sha256"] for entry in got["files"])]
    return facts


def forbidden_strings() -> list[str]:
    strings = []
    for skill in ZDR_SKILLS:
        strings += [skill.id, skill.name, skill.description, *skill.markers]
    for digests in cleared_facts().values():
        strings += digests
    return strings


def assert_no_leak(exchanges: list[Exchange], forbidden: list[str]) -> None:
    for exchange in exchanges:
        sent = exchange.request.lower()
        raw = exchange.raw().lower()
        for secret in forbidden:
            needle = secret.lower().encode()
            if needle in sent:
                continue  # an echo of the caller's own words is checked against the ghost id below
            assert needle not in raw, (secret, exchange.request, exchange.body[:2000])


def decoded_cursor(cursor: str, sha: str) -> tuple[str, str, int]:
    revision, query, position = signing.Signer(salt=cursors._SALT).unsign_object(cursor)
    assert revision == sha
    return ("cursor", query, position)


def normalised(value: Any, sha: str) -> Any:
    """A message with what must differ between two registries (their SHA, publish time,
    the cursors' revision and signature) replaced by placeholders."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(item, str):  # (tools/list schemas have such keys too)
                out[key] = normalised(item, sha)
            elif key in ("registry_sha", "active_sha"):
                assert item == sha, (key, item)
                out[key] = "<sha>"
            elif key == "published_at":
                out[key] = "<published_at>"
            elif key in ("next_cursor", "nextCursor", "cursor"):
                out[key] = item if item == "not-a-cursor" else decoded_cursor(item, sha)
            elif key == "revision":
                out[key] = {sha: "<sha>", sha[:7]: "<sha7>"}[item]
            elif key == "text" and value.get("type") == "text":
                out[key] = normalised(json.loads(item), sha)
            else:
                out[key] = normalised(item, sha)
        return out
    if isinstance(value, list):
        return [normalised(item, sha) for item in value]
    return value

"""MCP clients for the tests, and a registry published into the test database.

McpClient(token)        JSON-RPC to /mcp through django.test.Client (in process)
ModernMcp(token)        the same as a client of MCP 2026-07-28 (per-request _meta, mirrored headers)
HttpMcp(mcp_url, token) JSON-RPC to a real server over HTTP (one keep-alive connection)
publish_head(repo)      commit the work tree and publish it; the new active SHA
Published               a published repository and its SHA
Registry                a published repository and exactly what it holds, by skill

"""

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from django.http import HttpResponse
from django.test import Client

from catalog import index as catalog_index
from catalog.publishing import publish
from mcpapi import answer_cache
from tests.support.repos import SkillRepo
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

ACCEPT = "application/json, text/event-stream"


class McpClient:
    """POSTs JSON-RPC messages to /mcp the way an MCP client does. A handler that raised is
    re-raised here (django.test.Client's default): a 500 never slips by unnoticed."""

    def __init__(self, token: str | None = READ_TOKEN) -> None:
        self.http = Client()
        self.token = token
        self._ids = itertools.count(1)

    def headers(self, token: str | None = None, **extra: str) -> dict[str, str]:
        token = token if token is not None else self.token
        headers = {"Accept": ACCEPT}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        headers.update(extra)
        return headers

    def post(self, body: Any, *, token: str | None = None, **headers: str) -> HttpResponse:
        data = body if isinstance(body, bytes) else json.dumps(body)
        return self.http.post(
            "/mcp", data=data, content_type="application/json", headers=self.headers(token, **headers)
        )

    def rpc(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        """The whole JSON-RPC response (result or error) to one request."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        response = self.post(message, **kwargs)
        assert response.status_code == 200, (response.status_code, response.content)
        assert response["Content-Type"] == "application/json"
        reply = response.json()
        assert reply["id"] == message["id"]
        return reply

    def result(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        reply = self.rpc(method, params, **kwargs)
        assert "error" not in reply, reply
        return reply["result"]

    def error(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        reply = self.rpc(method, params, **kwargs)
        assert "result" not in reply, reply
        return reply["error"]

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """A tool's CallToolResult; checks the text content mirrors structuredContent."""
        token = arguments.pop("_token", None)
        result = self.result("tools/call", {"name": tool, "arguments": arguments}, token=token)
        [content] = result["content"]
        assert content["type"] == "text"
        assert json.loads(content["text"]) == result["structuredContent"]
        return result

    def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self.call(tool, **arguments)
        assert result["isError"] is False, result
        return result["structuredContent"]

    def fails(self, tool: str, code: str, **arguments: Any) -> dict[str, Any]:
        result = self.call(tool, **arguments)
        assert result["isError"] is True, result
        assert result["structuredContent"]["error"]["code"] == code, result
        return result["structuredContent"]

    def invalid_argument(self, tool: str, **arguments: Any) -> str:
        """The message of the INVALID_ARGUMENT tool error `arguments` get; it names the tool."""
        error = self.fails(tool, "INVALID_ARGUMENT", **arguments)["error"]
        assert set(error) == {"code", "message"}, error
        assert error["message"].startswith(f"{tool}: "), error
        return error["message"]


MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
META = {
    VERSION_KEY: MODERN,
    CAPABILITIES_KEY: {},
    CLIENT_INFO_KEY: {"name": "tests", "version": "1"},
}
_NAME_BEARING = {"tools/call": "name", "resources/read": "uri"}
_DEFAULT: Any = object()


class ModernMcp:
    """POSTs 2026-07-28 requests to /mcp. `headers` overrides the computed ones (a value of
    None drops that header); `meta` replaces params._meta (None: send none)."""

    def __init__(self, token: str = READ_TOKEN) -> None:
        self.http = Client()
        self.token = token
        self._ids = itertools.count(1)
        self.last_id: int | None = None

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        meta: Any = _DEFAULT,
        headers: dict[str, str | None] | None = None,
        notification: bool = False,
    ) -> HttpResponse:
        body_params = dict(params or {})
        if meta is _DEFAULT:
            body_params["_meta"] = META
        elif meta is not None:
            body_params["_meta"] = meta
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": body_params}
        if not notification:
            self.last_id = next(self._ids)
            message["id"] = self.last_id
        computed: dict[str, str | None] = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
        key = _NAME_BEARING.get(method)
        if key is not None and isinstance(body_params.get(key), str):
            computed["Mcp-Name"] = body_params[key]
        computed.update(headers or {})
        sent = {name: value for name, value in computed.items() if value is not None}
        sent["Accept"] = "application/json, text/event-stream"
        sent["Authorization"] = f"Bearer {self.token}"
        return self.http.post("/mcp", data=json.dumps(message), content_type="application/json", headers=sent)

    def result(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        """A successful result, which carries resultType and the server's identity."""
        response = self.send(method, params, **kwargs)
        assert response.status_code == 200, (response.status_code, response.content)
        reply = response.json()
        assert reply["id"] == self.last_id
        assert "error" not in reply, reply
        result = reply["result"]
        assert result["resultType"] == "complete", result
        assert result["_meta"][SERVER_INFO_KEY]["name"] == "skills-registry"
        return result

    def error(
        self, method: str, params: dict[str, Any] | None = None, *, status: int, **kwargs: Any
    ) -> dict[str, Any]:
        """The error of a refused request, sent with `status` and echoing the request id."""
        response = self.send(method, params, **kwargs)
        assert response.status_code == status, (response.status_code, response.content)
        assert response["Content-Type"] == "application/json"
        reply = response.json()
        assert set(reply) == {"jsonrpc", "id", "error"}, reply
        assert reply["id"] == self.last_id
        return reply["error"]

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """A CallToolResult; its text content mirrors structuredContent."""
        result = self.result("tools/call", {"name": tool, "arguments": arguments})
        [content] = result["content"]
        assert json.loads(content["text"]) == result["structuredContent"]
        return result


class HttpMcp:
    """JSON-RPC over real HTTP (gunicorn); one keep-alive connection per instance."""

    def __init__(self, mcp_url: str, token: str = READ_TOKEN, timeout: float = 30) -> None:
        self.mcp_url = mcp_url
        headers = {"Accept": ACCEPT, "Content-Type": "application/json", "Authorization": f"Bearer {token}"}
        self.http = httpx.Client(headers=headers, timeout=timeout)
        self._ids = itertools.count(1)

    def close(self) -> None:
        self.http.close()

    def post(self, content: bytes, **headers: str) -> httpx.Response:
        return self.http.post(self.mcp_url, content=content, headers=headers)

    def rpc(self, method: str, params: dict[str, Any] | None = None) -> httpx.Response:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        return self.post(json.dumps(message).encode())

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """structuredContent of a successful tool call; AssertionError on anything else."""
        response = self.rpc("tools/call", {"name": tool, "arguments": arguments})
        assert response.status_code == 200, (response.status_code, response.text[:500])
        result = response.json()["result"]
        assert result["isError"] is False, result
        return result["structuredContent"]


@contextmanager
def only_static_callers(settings: Any) -> Iterator[None]:
    """For pytest-django's `settings`: READ_TOKEN and ZDR_TOKEN, no GitHub login, nothing
    that could reach a real GitHub, no Origin list; the per-process caches empty before and
    after (an index built for one test's database must not serve another's)."""
    settings.SKILLS_READ_TOKENS = [READ_TOKEN]
    settings.SKILLS_ZDR_TOKENS = [ZDR_TOKEN]
    settings.ALLOWED_GITHUB_LOGINS = []
    settings.ZDR_GITHUB_LOGINS = []
    settings.GITHUB_API_URL = "http://127.0.0.1:9"
    settings.MCP_ALLOWED_ORIGINS = []
    catalog_index.clear_index_cache()
    answer_cache.answers.clear()
    yield
    catalog_index.clear_index_cache()
    answer_cache.answers.clear()


def publish_head(repo: SkillRepo, message: str = "update skills") -> str:
    """Commit the work tree and publish that commit; the new active SHA."""
    sha = repo.commit(message)
    publish(repo.root, sha)
    return sha


@dataclass(frozen=True)
class Published:
    repo: SkillRepo
    sha: str


@dataclass(frozen=True)
class Registry:
    """A published registry in the test database, and exactly what it holds."""

    repo: SkillRepo
    sha: str
    # skill id -> {path relative to the skill directory -> bytes}; SKILL.md included
    files: dict[str, dict[str, bytes]]
    zdr_ids: frozenset[str]

    @classmethod
    def of(cls, repo: SkillRepo, sha: str, zdr_ids: frozenset[str]) -> "Registry":
        files = {
            skill_dir.name: {
                path.relative_to(skill_dir).as_posix(): path.read_bytes()
                for path in sorted(skill_dir.rglob("*"))
                if path.is_file()
            }
            for skill_dir in sorted((repo.root / "skills").iterdir())
        }
        return cls(repo, sha, files, zdr_ids)

    def visible(self, zdr_cleared: bool) -> dict[str, dict[str, bytes]]:
        return {sid: f for sid, f in self.files.items() if zdr_cleared or sid not in self.zdr_ids}

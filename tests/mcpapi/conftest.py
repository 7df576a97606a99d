"""Shared pieces of the /mcp tests: callers, a JSON-RPC client over django.test.Client,
and real skills repositories published into the test database."""

import copy
import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from catalog import index as catalog_index
from catalog.publishing import publish
from tests.skillrepo import DEFAULT_CONFIG, SkillRepo

READ_TOKEN = "mcp-read-token-0123456789"
ZDR_TOKEN = "mcp-zdr-token-9876543210"


@pytest.fixture(autouse=True)
def mcp_settings(settings) -> Iterator[None]:
    """Known callers whatever the environment; nothing may reach a real GitHub."""
    settings.SKILLS_READ_TOKENS = [READ_TOKEN]
    settings.SKILLS_ZDR_TOKENS = [ZDR_TOKEN]
    settings.ALLOWED_GITHUB_LOGINS = []
    settings.ZDR_GITHUB_LOGINS = []
    settings.GITHUB_API_URL = "http://127.0.0.1:9"
    settings.MCP_ALLOWED_ORIGINS = []
    catalog_index.clear_index_cache()
    yield
    catalog_index.clear_index_cache()


class McpClient:
    """POSTs JSON-RPC messages to /mcp the way an MCP client does."""

    def __init__(self, token: str | None = READ_TOKEN) -> None:
        self.http = Client()
        self.token = token
        self._ids = itertools.count(1)

    def headers(self, token: str | None = None, **extra: str) -> dict[str, str]:
        token = token if token is not None else self.token
        headers = {"Accept": "application/json, text/event-stream"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        headers.update(extra)
        return headers

    def post(self, body: Any, *, token: str | None = None, **headers: str):
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


@pytest.fixture
def mcp() -> McpClient:
    return McpClient()


@pytest.fixture
def mcp_zdr() -> McpClient:
    return McpClient(ZDR_TOKEN)


def config_with(**changes: Any) -> dict[str, Any]:
    """The default registry config with sections changed, e.g. pagination={"max_limit": 2}."""
    config = copy.deepcopy(DEFAULT_CONFIG)
    for key, value in changes.items():
        if isinstance(value, dict):
            config[key].update(value)
        else:
            config[key] = value
    return config


def publish_head(repo: SkillRepo, message: str = "update skills") -> str:
    """Commit the work tree and publish that commit; the new active SHA."""
    sha = repo.commit(message)
    publish(repo.root, sha)
    return sha


# The standard registry of most tests: what each skill is for is in its name.
GUIDE = "# Guide\nRead me first.\n"
SCRIPT = "#!/bin/sh\necho hello\n"


def add_standard_skills(repo: SkillRepo) -> None:
    repo.add_skill(
        "alpha",
        body="Alpha steps: review the diff.\n",
        files={"references/guide.md": GUIDE, "scripts/run.sh": SCRIPT},
        name="Alpha",
        description="Review pull requests carefully.",
        tags=["review", "docs"],
        keywords=["diff"],
    )
    repo.add_skill(
        "beta", body="Beta steps.\n", name="Beta", description="Write commit messages.", tags=["git"]
    )
    repo.add_skill(
        "gamma",
        body="Gamma steps mention review once.\n",
        name="Gamma",
        description="Plan releases.",
        tags=["git", "release"],
    )
    repo.add_skill(
        "secret-ops",
        body="Secret incident steps.\n",
        files={"references/runbook.md": "# Runbook\n"},
        name="Secret Ops",
        description="Respond to a security incident in review.",
        tags=["security", "review"],
        required_zdr=True,
    )


@dataclass(frozen=True)
class Published:
    repo: SkillRepo
    sha: str


@pytest.fixture
def standard(make_repo: Callable[..., SkillRepo]) -> Published:
    """alpha, beta, gamma and the ZDR-only secret-ops, published."""
    repo = make_repo()
    add_standard_skills(repo)
    return Published(repo, publish_head(repo))

"""The official MCP Python SDK, as a real client, against gunicorn serving the registry."""

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.support.e2e import RegistryServer
from tests.support.sdk import all_resource_uris
from tests.support.standard import GUIDE, SCRIPT

pytestmark = pytest.mark.e2e


def run_client(
    server: RegistryServer,
    body: Callable[[Client], Awaitable[Any]],
    *,
    token: str | None = None,
    mode: str = "legacy",
) -> Any:
    """Connect the SDK client (static bearer header, as Claude Code or Codex are configured),
    run `body` with it, and return what it returns."""

    async def main() -> Any:
        headers = {"Authorization": f"Bearer {token or server.read_token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            transport = streamable_http_client(server.mcp_url, http_client=http)
            async with Client(transport, mode=mode) as client:
                return await body(client)

    return anyio.run(main)


def structured(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result
    [content] = result.content
    assert json.loads(content.text) == result.structured_content
    return result.structured_content


@pytest.mark.filterwarnings("ignore:ping is removed:mcp.shared.exceptions.MCPDeprecationWarning")
def test_the_sdk_negotiates_the_newest_version_and_reads_the_instructions(
    registry_server: RegistryServer,
) -> None:
    async def body(client: Client) -> None:
        assert client.protocol_version == "2025-11-25"
        assert client.server_info is not None
        assert client.server_info.name == "skills-registry"
        assert client.instructions is not None and "skills_search" in client.instructions
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.resources is not None
        await client.send_ping()

    run_client(registry_server, body)


def test_auto_mode_discovers_and_speaks_2026_07_28(registry_server: RegistryServer) -> None:
    async def body(client: Client) -> str:
        result = await client.call_tool("skills_get", {"id": "beta"})
        assert structured(result)["instructions"] == "Beta steps.\n"
        assert client.server_info is not None and client.server_info.name == "skills-registry"
        return client.protocol_version

    assert run_client(registry_server, body, mode="auto") == "2026-07-28"


def test_the_sdk_lists_tools_page_by_page(registry_server: RegistryServer) -> None:
    async def body(client: Client) -> list[Any]:
        tools, cursor = [], None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools += page.tools
            cursor = page.next_cursor
            if cursor is None:
                return tools

    tools = run_client(registry_server, body)
    assert [tool.name for tool in tools] == ["skills_list", "skills_search", "skills_get", "skills_get_file"]
    for tool in tools:
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.open_world_hint is False
        assert tool.output_schema is not None


def test_the_sdk_calls_every_tool(registry_server: RegistryServer) -> None:
    async def body(client: Client) -> dict[str, Any]:
        await client.list_tools()  # the SDK validates results against the listed output schemas
        listed = structured(await client.call_tool("skills_list", {"limit": 2}))
        rest = structured(
            await client.call_tool("skills_list", {"limit": 2, "cursor": listed["next_cursor"]})
        )
        found = structured(await client.call_tool("skills_search", {"query": "review"}))
        skill = structured(
            await client.call_tool("skills_get", {"id": "alpha", "revision": registry_server.sha})
        )
        pages, cursor = [], None
        while True:
            arguments = {"id": "alpha", "path": "references/guide.md"}
            if cursor:
                arguments["cursor"] = cursor
            page = structured(await client.call_tool("skills_get_file", arguments))
            pages.append(page)
            cursor = page["next_cursor"]
            if cursor is None:
                break
        script = structured(
            await client.call_tool("skills_get_file", {"id": "alpha", "path": "scripts/run.sh"})
        )
        return {
            "listed": listed,
            "rest": rest,
            "found": found,
            "skill": skill,
            "pages": pages,
            "script": script,
        }

    got = run_client(registry_server, body)
    assert [s["id"] for s in got["listed"]["skills"]] == ["alpha", "beta"]
    assert [s["id"] for s in got["rest"]["skills"]] == ["gamma"]
    assert got["rest"]["next_cursor"] is None
    assert got["listed"]["registry_sha"] == registry_server.sha
    assert [hit["id"] for hit in got["found"]["results"]] == ["alpha", "gamma"]
    assert got["found"]["results"][0]["match_reasons"][0] == {"rule": "tag", "term": "review"}
    assert got["skill"]["metadata"]["id"] == "alpha"
    assert [entry["path"] for entry in got["skill"]["files"]] == ["references/guide.md", "scripts/run.sh"]
    assert "".join(page["text"] for page in got["pages"]) == GUIDE
    assert got["script"]["text"] == SCRIPT
    assert got["script"]["executable"] is True


def test_tool_errors_reach_the_sdk_as_error_results(registry_server: RegistryServer) -> None:
    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("skills_get", {"id": "nope"}),
            await client.call_tool("skills_get", {"id": "alpha", "revision": "0" * 40}),
            await client.call_tool("skills_get_file", {"id": "alpha", "path": "../../etc/passwd"}),
        ]

    missing, stale, traversal = run_client(registry_server, body)
    assert missing.is_error and missing.structured_content["error"]["code"] == "SKILL_NOT_FOUND"
    assert stale.structured_content["error"] == {
        "code": "REVISION_UNAVAILABLE",
        "message": stale.structured_content["error"]["message"],
        "active_sha": registry_server.sha,
    }
    assert traversal.structured_content["error"]["code"] == "INVALID_PATH"


def test_protocol_errors_reach_the_sdk_as_mcp_errors(registry_server: RegistryServer) -> None:
    async def body(client: Client) -> list[int]:
        codes = []
        with pytest.raises(MCPError) as raised:
            await client.call_tool("skills_delete", {})
        codes.append(raised.value.error.code)
        with pytest.raises(MCPError) as raised:
            await client.read_resource("skill://nope/SKILL.md")
        codes.append(raised.value.error.code)
        return codes

    assert run_client(registry_server, body) == [-32602, -32002]


def test_bad_arguments_reach_the_sdk_as_error_results_the_model_reads(
    registry_server: RegistryServer,
) -> None:
    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("skills_list", {"limit": 0}),
            await client.call_tool("skills_search", {}),
        ]

    too_small, missing = run_client(registry_server, body)
    assert too_small.is_error and too_small.structured_content["error"]["code"] == "INVALID_ARGUMENT"
    assert "'limit' must be at least 1" in too_small.structured_content["error"]["message"]
    assert missing.is_error and "'query' is required" in missing.structured_content["error"]["message"]


def test_the_sdk_lists_and_reads_resources(registry_server: RegistryServer) -> None:
    async def body(client: Client) -> tuple[list[str], dict[str, str], list[str]]:
        uris = await all_resource_uris(client)
        texts = {}
        for uri in ("skill://alpha/SKILL.md", "skill://alpha/references/guide.md"):
            [content] = (await client.read_resource(uri)).contents
            texts[uri] = content.text
        templates = await client.list_resource_templates()
        return uris, texts, [template.uri_template for template in templates.resource_templates]

    uris, texts, templates = run_client(registry_server, body)
    assert uris == [
        "skill://alpha/SKILL.md",
        "skill://alpha/references/guide.md",
        "skill://alpha/scripts/run.sh",
        "skill://beta/SKILL.md",
        "skill://gamma/SKILL.md",
    ]
    assert (
        texts["skill://alpha/SKILL.md"] == (registry_server.repo.root / "skills/alpha/SKILL.md").read_text()
    )
    assert texts["skill://alpha/references/guide.md"] == GUIDE
    assert templates == ["skill://{id}/SKILL.md", "skill://{id}/{path}"]


def test_a_zdr_token_sees_zdr_skills_through_the_sdk(registry_server: RegistryServer) -> None:
    async def body(client: Client) -> list[str]:
        listed = structured(await client.call_tool("skills_list", {}))
        return [skill["id"] for skill in listed["skills"]]

    assert run_client(registry_server, body) == ["alpha", "beta", "gamma"]
    assert run_client(registry_server, body, token=registry_server.zdr_token) == [
        "alpha",
        "beta",
        "gamma",
        "secret-ops",
    ]


def test_a_bad_token_never_connects(registry_server: RegistryServer) -> None:
    async def body(client: Client) -> None:  # pragma: no cover - never reached
        raise AssertionError("connected with a bad token")

    for mode in ("legacy", "auto"):
        with pytest.raises(ExceptionGroup) as raised:
            run_client(registry_server, body, token="wrong*token", mode=mode)
        assert raised.group_contains(MCPError)


# --- the same server over plain HTTP ------------------------------------------------------


def test_healthz_names_the_published_snapshot(registry_server: RegistryServer) -> None:
    health = httpx.get(f"{registry_server.url}/healthz").json()
    assert health["status"] == "ok"
    assert health["registry_sha"] == registry_server.sha


def test_http_edges_through_gunicorn(registry_server: RegistryServer) -> None:
    mcp_url = registry_server.mcp_url
    assert httpx.get(mcp_url, headers=registry_server.headers()).status_code == 405
    assert httpx.delete(mcp_url, headers=registry_server.headers()).status_code == 405
    unauthenticated = httpx.post(mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert unauthenticated.status_code == 401
    assert unauthenticated.headers["WWW-Authenticate"] == 'Bearer realm="mcp"'
    notification = httpx.post(
        mcp_url,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers=registry_server.headers(),
    )
    assert (notification.status_code, notification.content) == (202, b"")
    batch = httpx.post(
        mcp_url, json=[{"jsonrpc": "2.0", "id": 1, "method": "ping"}], headers=registry_server.headers()
    )
    assert batch.status_code == 400
    evil = httpx.post(
        mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers=registry_server.headers(Origin="https://evil.example.com"),
    )
    assert evil.status_code == 403
    version = httpx.post(
        mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers=registry_server.headers(**{"MCP-Protocol-Version": "2099-01-01"}),
    )
    assert version.status_code == 400


def test_a_chunked_body_is_read_through_gunicorn(registry_server: RegistryServer) -> None:
    def chunks():
        yield b'{"jsonrpc": "2.0", "id": 7, '
        yield b'"method": "ping"}'

    response = httpx.post(registry_server.mcp_url, content=chunks(), headers=registry_server.headers())
    assert response.json() == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_an_oversized_body_is_413_through_gunicorn(registry_server: RegistryServer) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * (1024 * 1024)}})
    try:
        response = httpx.post(registry_server.mcp_url, content=body, headers=registry_server.headers())
    except httpx.TransportError:  # the server may close before the client has sent everything
        return
    assert response.status_code == 413


def test_a_new_publish_is_seen_by_the_next_request_and_old_cursors_go_stale(
    registry_server: RegistryServer,
) -> None:
    first = registry_server.rpc("tools/call", {"name": "skills_list", "arguments": {"limit": 1}}).json()
    cursor = first["result"]["structuredContent"]["next_cursor"]
    registry_server.repo.add_skill("delta", body="Delta steps.\n", description="A later skill.")
    new_sha = registry_server.repo.commit("add delta")
    registry_server.publish(new_sha)
    stale = registry_server.rpc(
        "tools/call", {"name": "skills_list", "arguments": {"limit": 1, "cursor": cursor}}
    ).json()["result"]
    assert stale["isError"] is True
    assert stale["structuredContent"]["error"]["code"] == "REVISION_UNAVAILABLE"
    assert stale["structuredContent"]["error"]["active_sha"] == new_sha
    # Both workers answer from the new snapshot (each caches indexes per process).
    for _ in range(6):
        listed = registry_server.rpc("tools/call", {"name": "skills_list", "arguments": {}}).json()["result"]
        assert listed["structuredContent"]["registry_sha"] == new_sha
        assert "delta" in [skill["id"] for skill in listed["structuredContent"]["skills"]]

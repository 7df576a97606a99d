"""The official MCP Python SDK against gunicorn, in both eras: its default mode (`auto`), which
ends up on revision 2026-07-28, and `legacy` (initialize). Every tool, every resource, and the
skills extension (skills/list across pages, skills/get) sent as raw requests through the SDK's
session; every digest and size against the bytes resources/read returns; a hidden ZDR skill
and one that never existed answered alike."""

import hashlib
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Literal

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from tests.support.e2e import RegistryServer, serving_registry
from tests.support.repos import config_with_sections
from tests.support.sdk import all_resource_uris
from tests.support.standard import GUIDE, SCRIPT, build_standard_repo

pytestmark = pytest.mark.e2e

NATIVE = ("native-a", "native-b", "native-c")  # named by their id: served by the skills extension
HIDDEN = "native-secret"  # native too, but ZDR-only
NATIVE_FILE = "# Native reference\n\nünïcödé ✓\n"
MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}


class ListSkills(types.PaginatedRequest[Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"


class GetSkillParams(types.RequestParams):
    uri: str


class GetSkill(types.Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"


AS_DICT = TypeAdapter(dict[str, Any])


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RegistryServer]:
    """The standard skills plus native ones, pages of two skills."""
    workdir = tmp_path_factory.mktemp("e2e-modern")
    repo = build_standard_repo(workdir / "repo")
    repo.write_config(config_with_sections(pagination={"default_limit": 2, "max_limit": 2}))
    for skill_id in NATIVE:
        repo.add_skill(
            skill_id, name=skill_id, body=f"{skill_id} steps.\n", files={"references/ref.md": NATIVE_FILE}
        )
    repo.add_skill(HIDDEN, name=HIDDEN, body="Hidden steps.\n", required_zdr=True)
    repo.commit("native skills")
    with serving_registry(workdir, repo, LOG_FORMAT="plain") as server:
        yield server


@pytest.fixture(params=list(MODES))
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


def run_client(
    server: RegistryServer, mode: str, body: Callable[[Client], Awaitable[Any]], token: str | None = None
) -> Any:
    """Connect the SDK (its default mode unless `mode` is legacy) and run `body` with it."""

    async def main() -> Any:
        headers = {"Authorization": f"Bearer {token or server.read_token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            transport = streamable_http_client(server.mcp_url, http_client=http)
            client = Client(transport) if mode == "auto" else Client(transport, mode=mode)
            async with client:
                return await body(client)

    return anyio.run(main)


async def list_skills(client: Client) -> list[dict[str, Any]]:
    pages, cursor = [], None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor)
        page = await client.session.send_request(ListSkills(params=params), AS_DICT)
        pages.append(page)
        cursor = page.get("nextCursor")
        if cursor is None:
            return pages


async def get_skill(client: Client, uri: str) -> dict[str, Any]:
    return await client.session.send_request(GetSkill(params=GetSkillParams(uri=uri)), AS_DICT)


async def read_bytes(client: Client, uri: str) -> bytes:
    [content] = (await client.read_resource(uri)).contents
    return content.text.encode("utf-8")


def structured(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result
    [content] = result.content
    assert json.loads(content.text) == result.structured_content
    return result.structured_content


def test_the_default_mode_ends_up_on_2026_07_28_and_legacy_on_2025_11_25(
    registry: RegistryServer, mode: str
) -> None:
    async def body(client: Client) -> tuple[str, Any]:
        return client.protocol_version, client.server_capabilities

    version, capabilities = run_client(registry, mode, body)
    assert version == MODES[mode]
    assert capabilities.extensions == {"io.modelcontextprotocol/skills": {"directoryRead": False}}
    assert capabilities.tools is not None and capabilities.resources is not None


def test_every_tool_through_the_sdk(registry: RegistryServer, mode: str) -> None:
    async def body(client: Client) -> dict[str, Any]:
        tools = await client.list_tools()  # the SDK checks results against these output schemas
        listed, cursor = [], None
        while True:
            arguments: dict[str, Any] = {"cursor": cursor} if cursor else {}
            page = structured(await client.call_tool("skills_list", arguments))
            listed += [skill["id"] for skill in page["skills"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        found = structured(await client.call_tool("skills_search", {"query": "review"}))
        skill = structured(await client.call_tool("skills_get", {"id": "alpha", "revision": registry.sha}))
        guide = structured(
            await client.call_tool("skills_get_file", {"id": "alpha", "path": "references/guide.md"})
        )
        script = structured(
            await client.call_tool("skills_get_file", {"id": "alpha", "path": "scripts/run.sh"})
        )
        return {
            "tools": [tool.name for tool in tools.tools],
            "limit": tools.tools[0].input_schema["properties"]["limit"],
            "listed": listed,
            "found": [hit["id"] for hit in found["results"]],
            "skill": skill,
            "guide": guide["text"],
            "script": script,
        }

    got = run_client(registry, mode, body)
    assert got["tools"] == ["skills_list", "skills_search", "skills_get", "skills_get_file"]
    assert (got["limit"]["minimum"], got["limit"]["maximum"]) == (1, 2)
    assert got["listed"] == ["alpha", "beta", "gamma", *NATIVE]
    assert got["found"][:2] == ["alpha", "gamma"]
    assert [entry["path"] for entry in got["skill"]["files"]] == ["references/guide.md", "scripts/run.sh"]
    assert got["guide"] == GUIDE
    assert (got["script"]["text"], got["script"]["executable"]) == (SCRIPT, True)


def test_argument_errors_are_results_the_model_reads_and_an_unknown_tool_is_an_error(
    registry: RegistryServer, mode: str
) -> None:
    async def body(client: Client) -> tuple[list[Any], int]:
        results = [
            await client.call_tool("skills_list", {"limit": 0}),
            await client.call_tool("skills_search", {}),
            await client.call_tool("skills_search", {"query": "x" * 1025}),
            await client.call_tool("skills_get", {"id": "alpha", "verbose": True}),
        ]
        with pytest.raises(MCPError) as raised:
            await client.call_tool("skills_delete", {})
        return results, raised.value.error.code

    results, unknown_tool = run_client(registry, mode, body)
    for result in results:
        assert result.is_error is True
        assert result.structured_content["error"]["code"] == "INVALID_ARGUMENT"
        assert result.structured_content["registry_sha"] == registry.sha
    assert "'limit' must be at least 1" in results[0].structured_content["error"]["message"]
    assert unknown_tool == -32602


def test_every_resource_through_the_sdk(registry: RegistryServer, mode: str) -> None:
    async def body(client: Client) -> tuple[list[str], dict[str, bytes], list[str]]:
        uris = await all_resource_uris(client)
        contents = {uri: await read_bytes(client, uri) for uri in uris}
        templates = await client.list_resource_templates()
        return uris, contents, [template.uri_template for template in templates.resource_templates]

    uris, contents, templates = run_client(registry, mode, body)
    skills_dir = registry.repo.root / "skills"
    expected = sorted(
        f"skill://{path.relative_to(skills_dir).as_posix()}"
        for path in skills_dir.rglob("*")
        if path.is_file() and not path.relative_to(skills_dir).as_posix().startswith(("secret-ops/", HIDDEN))
    )
    assert sorted(uris) == expected
    for uri, data in contents.items():
        assert data == (skills_dir / uri.removeprefix("skill://")).read_bytes(), uri
    assert templates == ["skill://{id}/SKILL.md", "skill://{id}/{path}"]


def test_skills_list_across_pages_and_skills_get_through_the_sdk(registry: RegistryServer, mode: str) -> None:
    async def body(client: Client) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, bytes]]:
        pages = await list_skills(client)
        skills = [skill for page in pages for skill in page["skills"]]
        got = [await get_skill(client, skill["uri"]) for skill in skills]
        files = {
            entry["uri"]: await read_bytes(client, entry["uri"])
            for skill in skills
            for entry in skill["resources"]
        }
        return pages, got, files

    pages, got, files = run_client(registry, mode, body)
    assert len(pages) == 2
    assert all((page["ttlMs"], page["cacheScope"]) == (60_000, "private") for page in pages)
    skills = [skill for page in pages for skill in page["skills"]]
    assert [skill["uri"] for skill in skills] == [f"skill://{skill_id}/SKILL.md" for skill_id in NATIVE]
    assert [answer["skill"] for answer in got] == skills
    for skill in skills:
        assert skill["frontmatter"]["name"] == skill["uri"].split("/")[2]
        assert [entry["uri"] for entry in skill["resources"]] == [
            skill["uri"],
            skill["uri"].replace("SKILL.md", "references/ref.md"),
        ]
        for entry in skill["resources"]:
            data = files[entry["uri"]]
            assert entry["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
            assert entry["size"] == len(data)
    if mode == "auto":
        assert all(page["resultType"] == "complete" for page in pages)


def test_a_hidden_zdr_skill_is_answered_as_one_that_never_existed(
    registry: RegistryServer, mode: str
) -> None:
    async def errors(client: Client, skill_id: str) -> list[Any]:
        answers = []
        for call in (
            lambda: get_skill(client, f"skill://{skill_id}/SKILL.md"),
            lambda: client.read_resource(f"skill://{skill_id}/SKILL.md"),
        ):
            with pytest.raises(MCPError) as raised:
                await call()
            error = raised.value.error
            answers.append((error.code, error.message, json.dumps(error.data).replace(skill_id, "<id>")))
        tool = await client.call_tool("skills_get", {"id": skill_id})
        answers.append(json.dumps(tool.structured_content["error"]).replace(skill_id, "<id>"))
        return answers

    async def body(client: Client) -> tuple[list[Any], list[Any], list[str]]:
        listed = [skill["uri"] for page in await list_skills(client) for skill in page["skills"]]
        return await errors(client, HIDDEN), await errors(client, "never-existed"), listed

    hidden, ghost, listed = run_client(registry, mode, body)
    assert hidden == ghost
    assert hidden[0][0] == -32602
    assert hidden[1][0] == (-32602 if mode == "auto" else -32002)
    assert f"skill://{HIDDEN}/SKILL.md" not in listed

    async def cleared(client: Client) -> tuple[list[str], dict[str, Any]]:
        listed = [skill["uri"] for page in await list_skills(client) for skill in page["skills"]]
        return listed, await get_skill(client, f"skill://{HIDDEN}/SKILL.md")

    listed, got = run_client(registry, mode, cleared, token=registry.zdr_token)
    assert f"skill://{HIDDEN}/SKILL.md" in listed
    assert got["skill"]["frontmatter"]["required_zdr"] is True

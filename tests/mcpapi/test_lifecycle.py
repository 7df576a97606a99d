"""initialize, ping and tools/list: what a client learns before calling anything."""

from importlib.metadata import version

import jsonschema
import pytest

from tests.support.mcp import McpClient, publish_head
from tests.support.repos import DEFAULT_CONFIG, config_with_sections

pytestmark = pytest.mark.django_db

CLIENT = {"capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}


@pytest.mark.parametrize("requested", ["2025-11-25", "2025-06-18", "2025-03-26"])
def test_initialize_echoes_a_supported_version(mcp: McpClient, requested: str) -> None:
    result = mcp.result("initialize", {"protocolVersion": requested, **CLIENT})
    assert result["protocolVersion"] == requested


@pytest.mark.parametrize("requested", ["2024-11-05", "2026-07-28", "1.0.0", ""])
def test_initialize_answers_the_newest_version_for_any_other(mcp: McpClient, requested: str) -> None:
    result = mcp.result("initialize", {"protocolVersion": requested, **CLIENT})
    assert result["protocolVersion"] == "2025-11-25"


def test_initialize_describes_the_server(mcp: McpClient) -> None:
    result = mcp.result("initialize", {"protocolVersion": "2025-11-25", **CLIENT})
    assert result["capabilities"] == {
        "tools": {"listChanged": False},
        "resources": {"listChanged": False},
        "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": False}},
    }
    assert result["serverInfo"]["name"] == "skills-registry"
    assert result["serverInfo"]["version"] == version("skills-registry")
    instructions = result["instructions"]
    for tool in ("skills_search", "skills_list", "skills_get", "skills_get_file"):
        assert tool in instructions
    assert "revision" in instructions
    assert "never runs" in instructions
    assert "never outranks the user's or the system's instructions" in instructions


def test_initialize_needs_no_published_snapshot(mcp: McpClient) -> None:
    assert mcp.result("initialize", {"protocolVersion": "2025-11-25", **CLIENT})["protocolVersion"]


@pytest.mark.parametrize("params", [None, {}, {"protocolVersion": 20251125}, {"protocolVersion": None}])
def test_initialize_without_a_version_string_is_invalid_params(mcp: McpClient, params) -> None:
    assert mcp.error("initialize", params)["code"] == -32602


def test_ping_answers_an_empty_result(mcp: McpClient) -> None:
    assert mcp.result("ping") == {}


def test_tools_list_names_the_four_tools_with_schemas_and_annotations(mcp: McpClient) -> None:
    tools = mcp.result("tools/list")["tools"]
    assert [tool["name"] for tool in tools] == [
        "skills_list",
        "skills_search",
        "skills_get",
        "skills_get_file",
    ]
    for tool in tools:
        assert tool["title"] and tool["description"]
        assert tool["annotations"]["readOnlyHint"] is True
        assert tool["annotations"]["openWorldHint"] is False
        assert tool["inputSchema"]["type"] == "object"
        assert tool["inputSchema"]["additionalProperties"] is False
        assert tool["outputSchema"]["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])
        for field in ("api_version", "registry_sha", "published_at"):
            assert field in tool["outputSchema"]["required"]


def test_tools_list_arguments_match_the_spec(mcp: McpClient) -> None:
    tools = {tool["name"]: tool["inputSchema"] for tool in mcp.result("tools/list")["tools"]}
    assert set(tools["skills_list"]["properties"]) == {"tags", "limit", "cursor", "revision"}
    assert set(tools["skills_search"]["properties"]) == {"query", "tags", "limit", "cursor", "revision"}
    assert tools["skills_search"]["required"] == ["query"]
    assert set(tools["skills_get"]["properties"]) == {"id", "revision"}
    assert tools["skills_get"]["required"] == ["id"]
    assert set(tools["skills_get_file"]["properties"]) == {"id", "path", "cursor", "revision"}
    assert tools["skills_get_file"]["required"] == ["id", "path"]


def test_input_schemas_state_the_bounds_the_server_enforces(mcp: McpClient, standard) -> None:
    tools = {tool["name"]: tool["inputSchema"]["properties"] for tool in mcp.result("tools/list")["tools"]}
    assert tools["skills_list"]["limit"] | {"description": ""} == {
        "type": "integer",
        "minimum": 1,
        "maximum": DEFAULT_CONFIG["pagination"]["max_limit"],
        "description": "",
    }
    assert tools["skills_search"]["limit"]["maximum"] == DEFAULT_CONFIG["search"]["max_limit"]
    assert tools["skills_search"]["limit"]["minimum"] == 1
    assert tools["skills_search"]["query"]["maxLength"] == 1024
    assert tools["skills_list"]["tags"]["maxItems"] == 32
    assert tools["skills_search"]["tags"]["maxItems"] == 32


def test_the_limit_bounds_are_the_active_snapshots_config(mcp: McpClient, make_repo) -> None:
    repo = make_repo(
        config_with_sections(
            pagination={"default_limit": 2, "max_limit": 7}, search={"default_limit": 5, "max_limit": 9}
        )
    )
    repo.add_skill("alpha")
    publish_head(repo)
    tools = {tool["name"]: tool["inputSchema"]["properties"] for tool in mcp.result("tools/list")["tools"]}
    assert tools["skills_list"]["limit"]["maximum"] == 7
    assert tools["skills_search"]["limit"]["maximum"] == 9
    repo.write_config(config_with_sections(pagination={"default_limit": 2, "max_limit": 3}))
    publish_head(repo)
    tools = {tool["name"]: tool["inputSchema"]["properties"] for tool in mcp.result("tools/list")["tools"]}
    assert tools["skills_list"]["limit"]["maximum"] == 3


def test_before_the_first_publish_no_limit_has_a_maximum(mcp: McpClient) -> None:
    tools = {tool["name"]: tool["inputSchema"]["properties"] for tool in mcp.result("tools/list")["tools"]}
    assert "maximum" not in tools["skills_list"]["limit"]
    assert tools["skills_list"]["limit"]["minimum"] == 1


def test_tools_list_has_one_page(mcp: McpClient) -> None:
    assert "nextCursor" not in mcp.result("tools/list")


def test_tools_list_refuses_a_cursor_it_never_issued(mcp: McpClient) -> None:
    assert mcp.error("tools/list", {"cursor": "abc"})["code"] == -32602


def test_a_null_cursor_is_the_first_page(mcp: McpClient) -> None:
    assert len(mcp.result("tools/list", {"cursor": None})["tools"]) == 4


def test_resource_templates_name_both_uri_shapes(mcp: McpClient) -> None:
    templates = mcp.result("resources/templates/list")["resourceTemplates"]
    assert [template["uriTemplate"] for template in templates] == [
        "skill://{id}/SKILL.md",
        "skill://{id}/{path}",
    ]
    assert all(template["name"] for template in templates)
    assert mcp.error("resources/templates/list", {"cursor": "abc"})["code"] == -32602

"""MCP revision 2026-07-28 at the HTTP level: server/discover, the per-request `_meta`, the
mirrored headers and their order of checks, error codes and statuses, and the fields every
result of this revision carries."""

import base64
import json
import logging

import pytest

from tests.support.mcp import (
    CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    META,
    MODERN,
    SERVER_INFO_KEY,
    VERSION_KEY,
    McpClient,
    ModernMcp,
    Published,
    publish_head,
)
from tests.support.repos import config_with_sections
from tests.support.standard import add_standard_skills

pytestmark = pytest.mark.django_db

SUPPORTED = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]
SKILL_MD_URI = "skill://alpha/SKILL.md"


@pytest.fixture
def modern() -> ModernMcp:
    return ModernMcp()


def b64(text: str) -> str:
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


# --- server/discover ------------------------------------------------------------------------


def test_discover_names_the_versions_the_capabilities_and_the_server(modern: ModernMcp) -> None:
    result = modern.result("server/discover")
    assert result["supportedVersions"] == SUPPORTED
    assert result["capabilities"] == {
        "tools": {},
        "resources": {},
        "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": False}},
    }
    assert "skills_search" in result["instructions"]
    assert result["ttlMs"] == 60_000
    assert result["cacheScope"] == "private"
    server_info = result["_meta"][SERVER_INFO_KEY]
    assert server_info["name"] == "skills-registry" and server_info["version"]
    assert result["serverInfo"] == server_info


def test_discover_needs_no_published_snapshot_and_no_client_info(modern: ModernMcp) -> None:
    meta = {key: value for key, value in META.items() if key != CLIENT_INFO_KEY}
    assert modern.result("server/discover", meta=meta)["supportedVersions"] == SUPPORTED


def test_the_cache_lifetime_is_configured_in_seconds(modern: ModernMcp, settings) -> None:
    settings.MCP_CACHE_TTL_SECONDS = 5
    assert modern.result("server/discover")["ttlMs"] == 5000
    settings.MCP_CACHE_TTL_SECONDS = 0
    assert modern.result("server/discover")["ttlMs"] == 0


# --- params._meta: checked first ---------------------------------------------------------------


@pytest.mark.parametrize(
    "meta",
    [
        None,
        {},
        "2026-07-28",
        {VERSION_KEY: MODERN},
        {CAPABILITIES_KEY: {}},
        {VERSION_KEY: 20260728, CAPABILITIES_KEY: {}},
        {VERSION_KEY: MODERN, CAPABILITIES_KEY: []},
    ],
)
def test_a_request_without_the_per_request_meta_is_400_invalid_params(modern: ModernMcp, meta) -> None:
    error = modern.error("server/discover", meta=meta, status=400)
    assert error["code"] == -32602
    assert VERSION_KEY in error["message"] and CAPABILITIES_KEY in error["message"]


def test_the_meta_is_checked_before_the_headers(modern: ModernMcp) -> None:
    error = modern.error("tools/list", meta={}, headers={"Mcp-Method": "wrong"}, status=400)
    assert error["code"] == -32602


def test_a_request_with_the_modern_meta_but_no_version_header_is_a_header_mismatch(
    modern: ModernMcp,
) -> None:
    error = modern.error("tools/list", headers={"MCP-Protocol-Version": None}, status=400)
    assert error["code"] == -32020


# --- the version ---------------------------------------------------------------------------------


def test_a_version_header_other_than_the_metas_is_a_header_mismatch(modern: ModernMcp) -> None:
    meta = {**META, VERSION_KEY: "v999.0.0"}
    error = modern.error("server/discover", meta=meta, status=400)
    assert error["code"] == -32020
    assert "MCP-Protocol-Version" in error["message"]
    error = modern.error("server/discover", headers={"MCP-Protocol-Version": "2025-11-25"}, status=400)
    assert error["code"] == -32020


def test_an_unsupported_version_is_400_naming_the_supported_ones(modern: ModernMcp) -> None:
    discovered = modern.result("server/discover")["supportedVersions"]
    meta = {**META, VERSION_KEY: "v999.0.0"}
    error = modern.error(
        "server/discover", meta=meta, headers={"MCP-Protocol-Version": "v999.0.0"}, status=400
    )
    assert error == {
        "code": -32022,
        "message": "Unsupported protocol version",
        "data": {"supported": SUPPORTED, "requested": "v999.0.0"},
    }
    assert set(error["data"]["supported"]) <= set(discovered)


def test_a_handshake_version_in_the_meta_is_not_served_statelessly(modern: ModernMcp) -> None:
    meta = {**META, VERSION_KEY: "2025-11-25"}
    error = modern.error("tools/list", meta=meta, headers={"MCP-Protocol-Version": "2025-11-25"}, status=400)
    assert error["code"] == -32022
    assert error["data"]["requested"] == "2025-11-25"


def test_the_headers_are_checked_before_the_version(modern: ModernMcp) -> None:
    meta = {**META, VERSION_KEY: "v999.0.0"}
    headers = {"MCP-Protocol-Version": "v999.0.0", "Mcp-Method": "tools/list"}
    assert modern.error("server/discover", meta=meta, headers=headers, status=400)["code"] == -32020


# --- Mcp-Method -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [None, "", "tools/call", "TOOLS/LIST", "Tools/List", "tools/list/", "tools/list, tools/list"],
)
def test_mcp_method_is_required_and_equal_to_the_method_case_sensitively(
    modern: ModernMcp, value: str | None
) -> None:
    error = modern.error("tools/list", headers={"Mcp-Method": value}, status=400)
    assert error["code"] == -32020
    assert "Mcp-Method" in error["message"]


@pytest.mark.parametrize("value", [" tools/list", "tools/list ", "\ttools/list\t", "  tools/list \t"])
def test_white_space_around_a_header_value_is_not_part_of_it(modern: ModernMcp, value: str) -> None:
    assert modern.result("tools/list", headers={"Mcp-Method": value})["tools"]


def test_white_space_around_the_version_header_is_not_part_of_it(modern: ModernMcp) -> None:
    assert modern.result("tools/list", headers={"MCP-Protocol-Version": f" {MODERN}\t"})["tools"]


def test_header_names_are_case_insensitive(modern: ModernMcp) -> None:
    headers = {"MCP-Protocol-Version": None, "Mcp-Method": None}
    headers.update({"mcp-protocol-version": MODERN, "MCP-METHOD": "tools/list"})
    assert modern.result("tools/list", headers=headers)["tools"]


@pytest.mark.parametrize("value", ["tools/list\x7f", "tools/líst", "tools/list\x01"])
def test_a_header_value_with_characters_no_header_may_hold_is_a_mismatch(
    modern: ModernMcp, value: str
) -> None:
    error = modern.error("tools/list", headers={"Mcp-Method": value}, status=400)
    assert error["code"] == -32020


# --- Mcp-Name -------------------------------------------------------------------------------------


def test_mcp_name_is_required_on_tools_call(modern: ModernMcp, standard: Published) -> None:
    params = {"name": "skills_list", "arguments": {}}
    error = modern.error("tools/call", params, headers={"Mcp-Name": None}, status=400)
    assert error["code"] == -32020 and "Mcp-Name" in error["message"]


def test_mcp_name_must_equal_the_tool_name(modern: ModernMcp, standard: Published) -> None:
    params = {"name": "skills_list", "arguments": {}}
    for value in ("skills_get", "SKILLS_LIST", "skills_list2", ""):
        error = modern.error("tools/call", params, headers={"Mcp-Name": value}, status=400)
        assert error["code"] == -32020, value


def test_mcp_name_is_required_on_resources_read(modern: ModernMcp, standard: Published) -> None:
    error = modern.error("resources/read", {"uri": SKILL_MD_URI}, headers={"Mcp-Name": None}, status=400)
    assert error["code"] == -32020


def test_mcp_name_must_equal_the_uri(modern: ModernMcp, standard: Published) -> None:
    for value in ("skill://beta/SKILL.md", "SKILL://alpha/SKILL.md", "skill://alpha/skill.md"):
        error = modern.error("resources/read", {"uri": SKILL_MD_URI}, headers={"Mcp-Name": value}, status=400)
        assert error["code"] == -32020, value


def test_mcp_name_is_not_asked_of_other_methods(modern: ModernMcp, standard: Published) -> None:
    assert modern.result("tools/list", headers={"Mcp-Name": "anything"})["tools"]
    # alpha is not native, so skills/get refuses it: for what it is, not for a missing Mcp-Name.
    error = modern.error("skills/get", {"uri": SKILL_MD_URI}, headers={"Mcp-Name": None}, status=400)
    assert error["code"] == -32602


def test_mcp_name_padded_with_white_space_is_accepted(modern: ModernMcp, standard: Published) -> None:
    params = {"name": "skills_list", "arguments": {}}
    result = modern.result("tools/call", params, headers={"Mcp-Name": "  skills_list\t "})
    assert result["isError"] is False


def test_mcp_name_in_the_base64_form_is_decoded(modern: ModernMcp, standard: Published) -> None:
    params = {"name": "skills_list", "arguments": {}}
    assert modern.result("tools/call", params, headers={"Mcp-Name": b64("skills_list")})["isError"] is False
    read = modern.result("resources/read", {"uri": SKILL_MD_URI}, headers={"Mcp-Name": b64(SKILL_MD_URI)})
    assert read["contents"][0]["uri"] == SKILL_MD_URI


def test_a_name_no_header_can_carry_plainly_travels_in_the_base64_form(
    modern: ModernMcp, standard: Published
) -> None:
    uri = "skill://alpha/références/guide.md"
    error = modern.error("resources/read", {"uri": uri}, headers={"Mcp-Name": b64(uri)}, status=400)
    assert error["code"] == -32602  # the header matched; the resource does not exist
    tool = " skills_list"
    error = modern.error(
        "tools/call", {"name": tool, "arguments": {}}, headers={"Mcp-Name": b64(tool)}, status=400
    )
    assert error["code"] == -32602 and "Unknown tool" in error["message"]


def test_a_literal_that_looks_encoded_is_encoded_by_clients(modern: ModernMcp, standard: Published) -> None:
    uri = "=?base64?literal?="
    error = modern.error("resources/read", {"uri": uri}, headers={"Mcp-Name": b64(uri)}, status=400)
    assert error["code"] == -32602


@pytest.mark.parametrize(
    "value",
    [
        "=?base64?c2tpbGxzX2xpc3Q?=",  # no padding
        "=?base64?c2tpbGxzX2xpc3Q==?=",  # too much padding
        "=?base64?c2tpbGxzX2xpc3Q=?=x",  # not the whole value: a literal, which differs
        "=?base64?c2tpbGxz@2xpc3Q=?=",  # a character outside the alphabet
        "=?base64?c2tpbGxzX2xpc3R=?=",  # non-zero trailing bits
        "=?base64?/w==?=",  # not UTF-8
        "=?base64? c2tpbGxzX2xpc3Q=?=",  # white space inside
    ],
)
def test_a_malformed_base64_name_is_a_mismatch(modern: ModernMcp, standard: Published, value: str) -> None:
    assert b64("skills_list") == "=?base64?c2tpbGxzX2xpc3Q=?="
    params = {"name": "skills_list", "arguments": {}}
    assert modern.error("tools/call", params, headers={"Mcp-Name": value}, status=400)["code"] == -32020


def test_the_base64_markers_are_lowercase_only(modern: ModernMcp, standard: Published) -> None:
    params = {"name": "skills_list", "arguments": {}}
    upper = "=?BASE64?" + base64.b64encode(b"skills_list").decode() + "?="
    assert modern.error("tools/call", params, headers={"Mcp-Name": upper}, status=400)["code"] == -32020


def test_a_call_without_a_name_is_invalid_params_not_a_mismatch(modern: ModernMcp) -> None:
    error = modern.error("tools/call", {"arguments": {}}, headers={"Mcp-Name": "x"}, status=400)
    assert error["code"] == -32602


# --- methods --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method",
    [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "completion/complete",
        "subscriptions/listen",
        "unknown/method",
    ],
)
def test_methods_this_revision_does_not_have_are_404_method_not_found(modern: ModernMcp, method: str) -> None:
    error = modern.error(method, {"protocolVersion": "2025-11-25"}, status=404)
    assert error["code"] == -32601


def test_a_notification_is_202_with_no_body(modern: ModernMcp) -> None:
    response = modern.send("notifications/initialized", notification=True)
    assert (response.status_code, response.content) == (202, b"")
    response = modern.send("notifications/cancelled", {"requestId": 1}, notification=True, meta=None)
    assert (response.status_code, response.content) == (202, b"")


def test_a_notification_at_an_unsupported_version_is_400(modern: ModernMcp) -> None:
    response = modern.send(
        "notifications/initialized",
        meta={**META, VERSION_KEY: "2099-01-01"},
        headers={"MCP-Protocol-Version": "2099-01-01"},
        notification=True,
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32022


def test_a_body_that_is_not_a_message_is_400_in_this_era_too(modern: ModernMcp) -> None:
    response = modern.http.post(
        "/mcp",
        data=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]}',
        content_type="application/json",
        headers={"Authorization": f"Bearer {modern.token}", "MCP-Protocol-Version": MODERN},
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32602
    assert response.json()["id"] == 1


# --- what every result carries ------------------------------------------------------------------

CACHEABLE = {
    "server/discover": None,
    "tools/list": None,
    "resources/list": None,
    "resources/templates/list": None,
    "resources/read": {"uri": SKILL_MD_URI},
}


@pytest.mark.parametrize("method", CACHEABLE)
def test_every_list_and_read_carries_its_cache_hints(modern: ModernMcp, standard: Published, method) -> None:
    result = modern.result(method, CACHEABLE[method])
    assert result["ttlMs"] == 60_000
    assert result["cacheScope"] == "private"


def test_every_page_of_resources_carries_its_cache_hints(modern: ModernMcp, make_repo) -> None:
    repo = make_repo(config_with_sections(pagination={"default_limit": 1, "max_limit": 2}))
    add_standard_skills(repo)
    publish_head(repo)
    page = modern.result("resources/list")
    pages = 1
    while "nextCursor" in page:
        page = modern.result("resources/list", {"cursor": page["nextCursor"]})
        assert (page["ttlMs"], page["cacheScope"]) == (60_000, "private")
        pages += 1
    assert pages == 3


def test_a_tool_result_carries_the_result_type_but_no_cache_hints(
    modern: ModernMcp, standard: Published
) -> None:
    for result in (
        modern.call("skills_list"),
        modern.call("skills_get", id="nope"),
        modern.call("skills_search", query=""),
    ):
        assert result["resultType"] == "complete"
        assert "ttlMs" not in result and "cacheScope" not in result


def test_results_before_the_first_publish_carry_the_same_fields(modern: ModernMcp) -> None:
    for method in ("tools/list", "resources/list", "resources/templates/list"):
        result = modern.result(method)
        assert (result["ttlMs"], result["cacheScope"]) == (60_000, "private")
    assert modern.call("skills_list")["structuredContent"]["error"]["code"] == "REGISTRY_EMPTY"


def test_the_answers_are_the_legacy_ones_plus_the_revisions_fields(
    modern: ModernMcp, mcp: McpClient, standard: Published
) -> None:
    added = {"resultType", "_meta", "ttlMs", "cacheScope"}
    for method, params in (
        ("tools/list", None),
        ("resources/list", None),
        ("resources/read", {"uri": SKILL_MD_URI}),
        ("tools/call", {"name": "skills_get", "arguments": {"id": "alpha"}}),
    ):
        new = modern.result(method, params)
        old = mcp.result(method, params)
        assert not added & set(old), method
        assert {key: value for key, value in new.items() if key not in added} == old, method


# --- errors of this era -------------------------------------------------------------------------


def test_an_unknown_resource_is_400_invalid_params_naming_the_uri(
    modern: ModernMcp, standard: Published
) -> None:
    for uri in ("skill://nope/SKILL.md", "skill://alpha/references/none.md", "skill://secret-ops/SKILL.md"):
        error = modern.error("resources/read", {"uri": uri}, status=400)
        assert error == {"code": -32602, "message": "Resource not found.", "data": {"uri": uri}}


def test_an_unknown_resource_stays_32002_for_initialize_clients(mcp: McpClient, standard: Published) -> None:
    assert mcp.error("resources/read", {"uri": "skill://nope/SKILL.md"})["code"] == -32002


def test_an_unknown_tool_is_400_invalid_params(modern: ModernMcp, standard: Published) -> None:
    params = {"name": "skills_delete", "arguments": {}}
    error = modern.error("tools/call", params, status=400)
    assert error["code"] == -32602 and "skills_delete" in error["message"]


def test_a_bad_argument_is_a_tool_result_in_this_era_too(modern: ModernMcp, standard: Published) -> None:
    result = modern.call("skills_list", limit=0)
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "INVALID_ARGUMENT"


def test_a_bad_list_cursor_is_400_invalid_params(modern: ModernMcp, standard: Published) -> None:
    for method in ("tools/list", "resources/list", "resources/templates/list", "skills/list"):
        assert modern.error(method, {"cursor": "junk"}, status=400)["code"] == -32602, method


def test_string_ids_are_echoed_in_errors(modern: ModernMcp) -> None:
    response = modern.http.post(
        "/mcp",
        data=json.dumps({"jsonrpc": "2.0", "id": "req-7", "method": "ping", "params": {"_meta": META}}),
        content_type="application/json",
        headers={
            "Authorization": f"Bearer {modern.token}",
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": "ping",
        },
    )
    assert response.status_code == 404
    assert response.json()["id"] == "req-7"


def test_the_access_log_names_each_requests_era(modern: ModernMcp, mcp: McpClient, caplog) -> None:
    with caplog.at_level(logging.INFO, logger="mcpapi.access"):
        modern.result("server/discover")
        mcp.result("ping")
        modern.error("tools/list", headers={"Mcp-Method": "x"}, status=400)
    eras = [(record.rpc_method, record.era) for record in caplog.records if record.name == "mcpapi.access"]
    assert eras == [("server/discover", "modern"), ("ping", "legacy"), ("tools/list", "modern")]

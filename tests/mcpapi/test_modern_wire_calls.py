"""MCP revision 2026-07-28 at the HTTP level, past the order of checks: Mcp-Name on tools/call
and resources/read, the methods this revision has, the fields every result carries, and the
errors of this era."""

import base64
import json
import logging

import pytest

from tests.support.mcp import (
    META,
    MODERN,
    VERSION_KEY,
    McpClient,
    ModernMcp,
    Published,
    publish_head,
)
from tests.support.repos import config_with_sections
from tests.support.standard import add_standard_skills

pytestmark = pytest.mark.django_db


SKILL_MD_URI = "skill://alpha/SKILL.md"


def b64(text: str) -> str:
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


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

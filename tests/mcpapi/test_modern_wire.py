"""MCP revision 2026-07-28 at the HTTP level: server/discover, the per-request `_meta`, the
version and the Mcp-Method header in their order of checks, error codes and statuses
(Mcp-Name, methods and results: test_modern_wire_calls.py)."""

import pytest

from tests.support.mcp import (
    CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    META,
    MODERN,
    SERVER_INFO_KEY,
    VERSION_KEY,
    ModernMcp,
)

pytestmark = pytest.mark.django_db

SUPPORTED = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]


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

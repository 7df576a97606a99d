"""POST /mcp at the HTTP level: JSON-RPC framing, ids, notifications, and the version, Accept
and Content-Type headers."""

import json

import pytest

from tests.mcpapi.transport_support import PING, error_of
from tests.support.mcp import McpClient

pytestmark = pytest.mark.django_db

# --- framing -----------------------------------------------------------------------------


def test_unparsable_json_is_400_parse_error(mcp: McpClient) -> None:
    response = mcp.post(b'{"jsonrpc": "2.0", "id": 1, "method": ')
    assert response.status_code == 400
    assert error_of(response)["code"] == -32700
    assert response.json()["id"] is None


def test_a_body_that_is_not_utf8_is_a_parse_error(mcp: McpClient) -> None:
    response = mcp.post(b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}')
    assert error_of(response)["code"] == -32700


def test_an_empty_body_is_a_parse_error(mcp: McpClient) -> None:
    assert error_of(mcp.post(b""))["code"] == -32700


def test_a_json_array_is_400_invalid_request(mcp: McpClient) -> None:
    response = mcp.post([PING, {**PING, "id": 2}])
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600


@pytest.mark.parametrize("body", ["ping", 42, None, True])
def test_a_message_that_is_not_an_object_is_invalid_request(mcp: McpClient, body: object) -> None:
    response = mcp.post(body)
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600


@pytest.mark.parametrize(
    "message",
    [
        {"id": 1, "method": "ping"},
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": 2.0, "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": [1], "method": "ping"},
        {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": 1, "method": 7},
        {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": "x"},
    ],
)
def test_a_malformed_message_is_invalid_request(mcp: McpClient, message: dict) -> None:
    response = mcp.post(message)
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600


def test_an_invalid_request_with_a_usable_id_names_it(mcp: McpClient) -> None:
    response = mcp.post({"jsonrpc": "1.0", "id": "abc", "method": "ping"})
    assert response.json()["id"] == "abc"


def test_string_and_integer_ids_are_echoed(mcp: McpClient) -> None:
    for request_id in ("req-1", 0, -5, 2**40):
        assert mcp.post({**PING, "id": request_id}).json() == {
            "jsonrpc": "2.0",
            "id": request_id,
            "result": {},
        }


def test_array_params_are_invalid_params(mcp: McpClient) -> None:
    response = mcp.post({**PING, "params": [1, 2]})
    assert response.status_code == 200
    assert error_of(response)["code"] == -32602


@pytest.mark.parametrize("method", ["notifications/initialized", "notifications/cancelled", "anything/else"])
def test_notifications_are_202_with_no_body(mcp: McpClient, method: str) -> None:
    response = mcp.post({"jsonrpc": "2.0", "method": method, "params": {"requestId": 3}})
    assert response.status_code == 202
    assert response.content == b""


def test_a_response_from_the_client_is_202(mcp: McpClient) -> None:
    response = mcp.post({"jsonrpc": "2.0", "id": 9, "result": {}})
    assert response.status_code == 202
    assert response.content == b""


def test_a_notification_still_needs_a_token(mcp: McpClient) -> None:
    response = mcp.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, token="")
    assert response.status_code == 401


def test_an_unknown_method_is_method_not_found(mcp: McpClient) -> None:
    for method in ("prompts/list", "logging/setLevel", "tools/delete", "completion/complete"):
        assert mcp.error(method)["code"] == -32601


def test_server_discover_belongs_to_revision_2026_07_28_only(mcp: McpClient) -> None:
    # Without that revision's header or _meta, a request is of the initialize era, which has no discover.
    response = mcp.post({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}})
    assert response.status_code == 200
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32601, "message": "Method not found: server/discover"},
    }
    # With that revision's header but no _meta, it is a 2026-07-28 request missing its _meta.
    response = mcp.post(
        {"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {}},
        **{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32602
    assert response.json()["id"] == 2


# --- headers -----------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26"])
def test_a_supported_protocol_version_header_is_accepted(mcp: McpClient, version: str) -> None:
    assert mcp.post(PING, **{"MCP-Protocol-Version": version}).status_code == 200


@pytest.mark.parametrize(
    "version", ["invalid-protocol-version", "2000-01-01", "2099-01-01", "2024-11-05", ""]
)
def test_an_unsupported_protocol_version_header_is_400(mcp: McpClient, version: str) -> None:
    response = mcp.post(
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, **{"MCP-Protocol-Version": version}
    )
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600
    assert response.json()["id"] == 4


def test_an_unsupported_protocol_version_header_is_400_for_notifications_too(mcp: McpClient) -> None:
    response = mcp.post(
        {"jsonrpc": "2.0", "method": "notifications/initialized"}, **{"MCP-Protocol-Version": "2099-01-01"}
    )
    assert response.status_code == 400


@pytest.mark.parametrize(
    "accept", ["application/json", "*/*", "application/*", "text/event-stream, application/json"]
)
def test_accept_headers_admitting_json_are_served(mcp: McpClient, accept: str) -> None:
    assert mcp.post(PING, Accept=accept).status_code == 200


def test_an_accept_header_without_json_is_406(mcp: McpClient) -> None:
    assert mcp.post(PING, Accept="text/event-stream").status_code == 406


def test_a_body_that_is_not_json_by_content_type_is_415(mcp: McpClient) -> None:
    response = mcp.http.post("/mcp", data=json.dumps(PING), content_type="text/plain", headers=mcp.headers())
    assert response.status_code == 415


def test_json_with_a_charset_is_json(mcp: McpClient) -> None:
    response = mcp.http.post(
        "/mcp", data=json.dumps(PING), content_type="application/json; charset=utf-8", headers=mcp.headers()
    )
    assert response.status_code == 200

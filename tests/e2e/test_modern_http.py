"""MCP revision 2026-07-28 over real HTTP (gunicorn, raw requests through http.client): every
header rule, the error codes and statuses of both eras, and the fields every modern result
carries, where the framing (white space around values, header name case) is the server's,
not a test client's."""

import base64
import http.client
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.support.e2e import RegistryServer

pytestmark = pytest.mark.e2e

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
URI = "skill://alpha/SKILL.md"
CALL = {"name": "skills_list", "arguments": {}}
READ = {"uri": URI}


def b64(text: str) -> str:
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


@dataclass(frozen=True)
class Answer:
    status_code: int
    headers: dict[str, str]
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


def post(
    server: RegistryServer,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    meta: Any = META,
    headers: dict[str, str | None] | None = None,
    request_id: int | None = 7,
) -> Answer:
    """POST through http.client, which (unlike httpx) sends header values exactly as given,
    white space around them included."""
    body_params = dict(params or {})
    if meta is not None:
        body_params["_meta"] = meta
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": body_params}
    if request_id is not None:
        message["id"] = request_id
    sent: dict[str, str | None] = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if method == "tools/call":
        sent["Mcp-Name"] = body_params.get("name")
    if method == "resources/read":
        sent["Mcp-Name"] = body_params.get("uri")
    sent.update(headers or {})
    extra = {name: value for name, value in sent.items() if value is not None}
    url = urlsplit(server.mcp_url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=30)
    try:
        connection.request(
            "POST", url.path, body=json.dumps(message).encode(), headers=server.headers(**extra)
        )
        reply = connection.getresponse()
        return Answer(reply.status, {k.title(): v for k, v in reply.getheaders()}, reply.read())
    finally:
        connection.close()


def refused(response: Answer, status: int, code: int) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.text[:500])
    assert response.headers["Content-Type"] == "application/json"
    reply = response.json()
    assert reply["id"] == 7, reply
    assert reply["error"]["code"] == code, reply
    return reply["error"]


def result(response: Answer) -> dict[str, Any]:
    assert response.status_code == 200, (response.status_code, response.text[:500])
    reply = response.json()
    assert reply["id"] == 7 and "error" not in reply, reply
    assert reply["result"]["resultType"] == "complete"
    assert reply["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "skills-registry"
    return reply["result"]


# (params, headers) that a conforming server must refuse with -32020, and some it must accept.
MISMATCHES = {
    "no Mcp-Method": ("tools/list", None, {"Mcp-Method": None}),
    "another Mcp-Method": ("tools/list", None, {"Mcp-Method": "resources/list"}),
    "Mcp-Method in another case": ("tools/list", None, {"Mcp-Method": "TOOLS/LIST"}),
    "two Mcp-Method headers": ("tools/list", None, {"Mcp-Method": "tools/list, tools/list"}),
    "no Mcp-Name on tools/call": ("tools/call", CALL, {"Mcp-Name": None}),
    "another Mcp-Name on tools/call": ("tools/call", CALL, {"Mcp-Name": "skills_get"}),
    "Mcp-Name in another case": ("tools/call", CALL, {"Mcp-Name": "Skills_List"}),
    "no Mcp-Name on resources/read": ("resources/read", READ, {"Mcp-Name": None}),
    "another Mcp-Name on resources/read": ("resources/read", READ, {"Mcp-Name": "skill://beta/SKILL.md"}),
    "base64 without padding": ("tools/call", CALL, {"Mcp-Name": "=?base64?c2tpbGxzX2xpc3Q?="}),
    "base64 with a character outside the alphabet": (
        "tools/call",
        CALL,
        {"Mcp-Name": "=?base64?c2tp*GxzX2xpc3Q=?="},
    ),
    "base64 markers in upper case": ("tools/call", CALL, {"Mcp-Name": "=?BASE64?c2tpbGxzX2xpc3Q=?="}),
    "no MCP-Protocol-Version": ("tools/list", None, {"MCP-Protocol-Version": None}),
    "MCP-Protocol-Version other than _meta's": ("tools/list", None, {"MCP-Protocol-Version": "2025-11-25"}),
}
ACCEPTED = {
    "Mcp-Name in base64": ("tools/call", CALL, {"Mcp-Name": b64("skills_list")}),
    "a URI in base64": ("resources/read", READ, {"Mcp-Name": b64(URI)}),
    "Mcp-Method padded with spaces and tabs": ("tools/list", None, {"Mcp-Method": " \ttools/list \t"}),
    "Mcp-Name padded": ("tools/call", CALL, {"Mcp-Name": "  skills_list  "}),
    "header names in lower case": ("tools/list", None, {"Mcp-Method": None, "mcp-method": "tools/list"}),
}


@pytest.mark.parametrize("case", MISMATCHES)
def test_a_missing_or_mismatched_header_is_400_header_mismatch(
    registry_server: RegistryServer, case: str
) -> None:
    method, params, headers = MISMATCHES[case]
    refused(post(registry_server, method, params, headers=headers), 400, -32020)


@pytest.mark.parametrize("case", ACCEPTED)
def test_headers_a_server_must_accept(registry_server: RegistryServer, case: str) -> None:
    method, params, headers = ACCEPTED[case]
    result(post(registry_server, method, params, headers=headers))


def test_the_meta_is_checked_first_and_the_version_last(registry_server: RegistryServer) -> None:
    refused(post(registry_server, "server/discover", meta={}, headers={"Mcp-Method": "x"}), 400, -32602)
    v999 = {**META, "io.modelcontextprotocol/protocolVersion": "v999.0.0"}
    refused(post(registry_server, "server/discover", meta=v999), 400, -32020)
    error = refused(
        post(registry_server, "server/discover", meta=v999, headers={"MCP-Protocol-Version": "v999.0.0"}),
        400,
        -32022,
    )
    discovered = result(post(registry_server, "server/discover"))["supportedVersions"]
    assert error["data"]["requested"] == "v999.0.0"
    assert set(error["data"]["supported"]) <= set(discovered)
    assert discovered[0] == MODERN


@pytest.mark.parametrize("method", ["initialize", "ping", "prompts/list", "unknown/method"])
def test_methods_this_revision_lacks_are_404(registry_server: RegistryServer, method: str) -> None:
    refused(post(registry_server, method, {"protocolVersion": "2025-11-25"}), 404, -32601)


def test_a_notification_is_202(registry_server: RegistryServer) -> None:
    response = post(registry_server, "notifications/initialized", request_id=None)
    assert (response.status_code, response.content) == (202, b"")


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("server/discover", None),
        ("tools/list", None),
        ("resources/list", None),
        ("resources/templates/list", None),
        ("resources/read", READ),
        ("skills/list", None),
    ],
)
def test_lists_reads_and_discover_carry_cache_hints(
    registry_server: RegistryServer, method: str, params
) -> None:
    got = result(post(registry_server, method, params))
    assert (got["ttlMs"], got["cacheScope"]) == (60_000, "private")


def test_errors_of_each_era(registry_server: RegistryServer) -> None:
    nope = {"uri": "skill://nope/SKILL.md"}
    error = refused(post(registry_server, "resources/read", nope), 400, -32602)
    assert error["data"] == nope
    legacy = registry_server.rpc("resources/read", nope)
    assert legacy.status_code == 200 and legacy.json()["error"]["code"] == -32002
    refused(post(registry_server, "tools/call", {"name": "skills_delete", "arguments": {}}), 400, -32602)
    refused(post(registry_server, "skills/get", {"uri": "skill://secret-ops/SKILL.md"}), 400, -32602)
    legacy = registry_server.rpc("tools/call", {"name": "skills_delete", "arguments": {}})
    assert legacy.status_code == 200 and legacy.json()["error"]["code"] == -32602


def test_a_bad_argument_is_a_tool_result_in_both_eras(registry_server: RegistryServer) -> None:
    modern = result(post(registry_server, "tools/call", {"name": "skills_list", "arguments": {"limit": 0}}))
    legacy = registry_server.rpc("tools/call", {"name": "skills_list", "arguments": {"limit": 0}}).json()[
        "result"
    ]
    for answer in (modern, legacy):
        assert answer["isError"] is True
        assert answer["structuredContent"]["error"]["code"] == "INVALID_ARGUMENT"
    assert "ttlMs" not in modern

"""POST /mcp at the HTTP level: one body shape for every refusal, the error boundary, the
access log."""

import json
import logging
import re

import pytest

from accounts.errors import LoginNotAllowed, UpstreamUnavailable
from mcpapi import admission, protocol
from tests.mcpapi.transport_support import PING, error_of
from tests.support.mcp import McpClient
from tests.support.tokens import READ_TOKEN

pytestmark = pytest.mark.django_db

# --- one body shape for every refusal ---------------------------------------------------


def _refused(mcp: McpClient, settings, monkeypatch, kind: str):
    """A request refused before dispatch, one per kind of refusal."""
    if kind == "login not allowed":
        monkeypatch.setattr(
            admission, "authenticate", lambda request: (_ for _ in ()).throw(LoginNotAllowed())
        )
    if kind == "upstream unavailable":
        monkeypatch.setattr(
            admission, "authenticate", lambda request: (_ for _ in ()).throw(UpstreamUnavailable())
        )
    if kind == "rate limited":
        settings.MCP_RATE_LIMIT_PER_MINUTE = 1
        mcp.post(PING)
    requests = {
        "method not allowed": lambda: mcp.http.get("/mcp", headers=mcp.headers()),
        "origin": lambda: mcp.post(PING, Origin="https://evil.example.com"),
        "declared too large": lambda: mcp.post(b"x" * (settings.MCP_MAX_BODY_BYTES + 1)),
        "no token": lambda: mcp.post(PING, token=""),
        "bad token": lambda: mcp.post(PING, token="wrong*token"),
        "login not allowed": lambda: mcp.post(PING),
        "upstream unavailable": lambda: mcp.post(PING),
        "rate limited": lambda: mcp.post(PING),
        "not acceptable": lambda: mcp.post(PING, Accept="text/event-stream"),
        "media type": lambda: mcp.http.post(
            "/mcp", data=json.dumps(PING), content_type="text/plain", headers=mcp.headers()
        ),
        "parse error": lambda: mcp.post(b"{"),
        "not a request": lambda: mcp.post([PING]),
        "protocol version": lambda: mcp.post(PING, **{"MCP-Protocol-Version": "2099-01-01"}),
    }
    return requests[kind]()


REFUSALS = {
    "method not allowed": (405, {"Allow": "POST"}),
    "origin": (403, {}),
    "declared too large": (413, {}),
    "no token": (401, {"WWW-Authenticate": 'Bearer realm="mcp"'}),
    "bad token": (401, {"WWW-Authenticate": 'Bearer realm="mcp", error="invalid_token"'}),
    "login not allowed": (403, {}),
    "upstream unavailable": (503, {"Retry-After": "5"}),
    "rate limited": (429, {"Retry-After": re.compile(r"[1-9][0-9]*")}),
    "not acceptable": (406, {}),
    "media type": (415, {}),
    "parse error": (400, {}),
    "not a request": (400, {}),
    "protocol version": (400, {}),
}


@pytest.mark.parametrize("kind", REFUSALS)
def test_every_refusal_is_a_json_rpc_error_envelope_with_its_status_and_headers(
    mcp: McpClient, settings, monkeypatch, kind: str
) -> None:
    status, headers = REFUSALS[kind]
    response = _refused(mcp, settings, monkeypatch, kind)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    for name, value in headers.items():
        assert value.fullmatch(response[name]) if isinstance(value, re.Pattern) else response[name] == value
    for name in {"Allow", "WWW-Authenticate", "Retry-After"} - set(headers):
        assert not response.has_header(name), name
    body = response.json()
    assert set(body) == {"jsonrpc", "id", "error"}
    assert body["jsonrpc"] == "2.0"
    assert body["id"] == (1 if kind == "protocol version" else None)
    assert set(body["error"]) <= {"code", "message", "data"}
    assert isinstance(body["error"]["code"], int) and body["error"]["message"]


# --- the error boundary and the access log -----------------------------------------------


def test_an_unexpected_error_is_internal_error_with_no_detail(mcp: McpClient, monkeypatch, caplog) -> None:
    def explode(params, context):
        raise RuntimeError("secret stack detail /etc/passwd")

    monkeypatch.setitem(
        protocol.dispatcher._methods, "ping", type(protocol.dispatcher._methods["ping"])({}, explode)
    )
    with caplog.at_level(logging.ERROR, logger="mcpapi"):
        response = mcp.post(PING)
    assert response.status_code == 200
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32603, "message": "Internal error."},
    }
    assert b"secret" not in response.content
    assert any("secret stack detail" in (record.exc_text or "") for record in caplog.records)


def test_each_request_logs_one_access_line_without_the_token(mcp: McpClient, standard, caplog) -> None:
    with caplog.at_level(logging.INFO, logger="mcpapi.access"):
        mcp.call("skills_list")
    [record] = [record for record in caplog.records if record.name == "mcpapi.access"]
    assert record.caller == "token:env"
    assert record.rpc_method == "tools/call"
    assert record.tool == "skills_list"
    assert record.status == 200
    assert record.registry_sha == standard.sha
    assert isinstance(record.duration_ms, float)
    assert READ_TOKEN not in caplog.text


def test_each_access_line_carries_a_request_id_echoed_in_the_response(
    mcp: McpClient, standard, caplog
) -> None:
    with caplog.at_level(logging.INFO, logger="mcpapi.access"):
        generated = mcp.post(PING)
        passed_on = mcp.post(PING, **{"X-Request-ID": "nginx-7f3a.1"})
        forged = mcp.post(PING, **{"X-Request-ID": "x {forged} line"})
    first, second, third = [record for record in caplog.records if record.name == "mcpapi.access"]
    assert re.fullmatch(r"[0-9a-f]{32}", first.request_id)
    assert generated["X-Request-ID"] == first.request_id
    assert second.request_id == passed_on["X-Request-ID"] == "nginx-7f3a.1"
    assert re.fullmatch(r"[0-9a-f]{32}", third.request_id), "a malformed id is replaced, never logged"
    assert forged["X-Request-ID"] == third.request_id
    assert "forged" not in caplog.text


def test_a_refused_request_is_logged_without_a_caller(mcp: McpClient, caplog) -> None:
    with caplog.at_level(logging.INFO, logger="mcpapi.access"):
        mcp.post(PING, token="wrong*token")
    [record] = [record for record in caplog.records if record.name == "mcpapi.access"]
    assert record.caller is None
    assert record.status == 401
    assert "wrong*token" not in caplog.text


@pytest.mark.parametrize(
    "body",
    [b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "ping"}', b"[" * 100000 + b"]" * 100000],
)
def test_pathological_json_is_a_parse_error_not_a_crash(mcp: McpClient, body: bytes) -> None:
    response = mcp.post(body)
    assert response.status_code == 400
    assert error_of(response)["code"] == -32700

"""POST /mcp at the HTTP level: methods, auth, origins, sizes, framing, version header."""

import io
import json
import logging
import re

import pytest
from django.test import Client, RequestFactory

from accounts.errors import LoginNotAllowed, UpstreamUnavailable
from mcpapi import admission, protocol, views
from tests.support.mcp import McpClient
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

pytestmark = pytest.mark.django_db

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def error_of(response) -> dict:
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    return body["error"]


@pytest.mark.parametrize("method", ["get", "delete", "put", "patch"])
def test_other_http_methods_are_405_with_allow_post(mcp: McpClient, method: str) -> None:
    response = getattr(mcp.http, method)("/mcp", headers=mcp.headers())
    assert response.status_code == 405
    assert response["Allow"] == "POST"


def test_get_is_405_even_without_a_token() -> None:
    assert Client().get("/mcp").status_code == 405


def test_a_trailing_slash_is_not_the_endpoint(mcp: McpClient) -> None:
    response = mcp.http.post("/mcp/", data=json.dumps(PING), content_type="application/json")
    assert response.status_code == 404


def test_no_csrf_token_is_needed(mcp: McpClient) -> None:
    strict = Client(enforce_csrf_checks=True)
    response = strict.post(
        "/mcp", data=json.dumps(PING), content_type="application/json", headers=mcp.headers()
    )
    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_without_a_token_it_is_401_with_the_bearer_challenge_and_nothing_else(mcp: McpClient) -> None:
    response = mcp.http.post("/mcp", data=json.dumps(PING), content_type="application/json")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="mcp"'
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Authentication required."},
    }


def test_a_bad_token_is_401_invalid_token(mcp: McpClient) -> None:
    response = mcp.post(PING, token="wrong*token")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="mcp", error="invalid_token"'
    assert "result" not in response.json()


def test_another_auth_scheme_is_401(mcp: McpClient) -> None:
    response = mcp.http.post(
        "/mcp", data=json.dumps(PING), content_type="application/json", headers={"Authorization": "Basic abc"}
    )
    assert response.status_code == 401


@pytest.mark.parametrize("token", [READ_TOKEN, ZDR_TOKEN])
def test_static_tokens_are_let_in(mcp: McpClient, token: str) -> None:
    assert mcp.post(PING, token=token).status_code == 200


# --- Origin (DNS-rebinding protection) ------------------------------------------------


@pytest.mark.parametrize("origin", ["http://localhost:8000", "http://127.0.0.1", "https://[::1]:9000"])
def test_an_origin_on_an_allowed_host_is_accepted(mcp: McpClient, origin: str) -> None:
    assert mcp.post(PING, Origin=origin).status_code == 200


@pytest.mark.parametrize("origin", ["https://evil.example.com", "null", "file://", "not a url", "http://"])
def test_an_origin_off_the_allowed_hosts_is_403_before_authentication(mcp: McpClient, origin: str) -> None:
    response = mcp.post(PING, token="", Origin=origin)
    assert response.status_code == 403
    assert error_of(response)["code"] == -32600


def test_allowed_hosts_patterns_apply_to_origins(mcp: McpClient, settings) -> None:
    settings.ALLOWED_HOSTS = ["testserver", ".example.com"]
    assert mcp.post(PING, Origin="https://app.example.com").status_code == 200
    assert mcp.post(PING, Origin="https://example.com:8443").status_code == 200
    assert mcp.post(PING, Origin="https://example.org").status_code == 403
    settings.ALLOWED_HOSTS = ["*"]
    assert mcp.post(PING, Origin="https://anything.test").status_code == 200


def test_configured_origins_are_the_exact_list(mcp: McpClient, settings) -> None:
    settings.MCP_ALLOWED_ORIGINS = ["https://claude.ai", "http://localhost:3000"]
    assert mcp.post(PING, Origin="https://claude.ai").status_code == 200
    assert mcp.post(PING, Origin="https://claude.ai:443").status_code == 200  # the same origin
    assert mcp.post(PING, Origin="http://localhost:3000").status_code == 200
    assert mcp.post(PING, Origin="http://claude.ai").status_code == 403  # another scheme
    assert mcp.post(PING, Origin="https://claude.ai:8443").status_code == 403  # another port
    assert mcp.post(PING, Origin="http://localhost:8000").status_code == 403  # hosts no longer count
    assert mcp.post(PING, Origin="https://sub.claude.ai").status_code == 403


def test_a_request_without_origin_is_not_refused_for_it(mcp: McpClient, settings) -> None:
    settings.MCP_ALLOWED_ORIGINS = ["https://claude.ai"]
    assert mcp.post(PING).status_code == 200


# --- body size ---------------------------------------------------------------------------


def test_a_body_over_the_limit_is_413(mcp: McpClient, settings) -> None:
    padding = "x" * settings.MCP_MAX_BODY_BYTES
    response = mcp.post({**PING, "params": {"_meta": {"pad": padding}}})
    assert response.status_code == 413


def test_a_declared_length_over_the_limit_is_413_before_authentication(mcp: McpClient, settings) -> None:
    response = mcp.post(b"x" * (settings.MCP_MAX_BODY_BYTES + 1), token="")
    assert response.status_code == 413


def test_a_body_of_exactly_the_limit_is_read(mcp: McpClient, settings) -> None:
    head = json.dumps({**PING, "params": {"_meta": {"pad": ""}}})
    padding = "x" * (settings.MCP_MAX_BODY_BYTES - len(head))
    body = json.dumps({**PING, "params": {"_meta": {"pad": padding}}}).encode()
    assert len(body) == settings.MCP_MAX_BODY_BYTES
    assert mcp.post(body).status_code == 200


def _chunked_request(body: bytes):
    """A POST without Content-Length whose input the WSGI server ends (as gunicorn does for chunked)."""
    request = RequestFactory().post(
        "/mcp",
        data=b"",
        content_type="application/json",
        headers={"Authorization": f"Bearer {READ_TOKEN}"},
    )
    request.META.pop("CONTENT_LENGTH", None)
    request.META["wsgi.input"] = io.BytesIO(body)
    request.META["wsgi.input_terminated"] = True
    return request


def test_a_chunked_body_is_read_up_to_the_limit(settings) -> None:
    response = views.mcp(_chunked_request(json.dumps(PING).encode()))
    assert response.status_code == 200
    assert json.loads(response.content) == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_a_chunked_body_over_the_limit_is_413(settings) -> None:
    response = views.mcp(_chunked_request(b" " * (settings.MCP_MAX_BODY_BYTES + 10)))
    assert response.status_code == 413


def test_an_invalid_content_length_is_400(mcp: McpClient) -> None:
    request = RequestFactory().post(
        "/mcp", data=json.dumps(PING), content_type="application/json", headers=mcp.headers()
    )
    request.META["CONTENT_LENGTH"] = "lots"
    assert views.mcp(request).status_code == 400


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

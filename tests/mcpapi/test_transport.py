"""POST /mcp at the HTTP level: methods, auth, origins, body sizes."""

import io
import json

import pytest
from django.test import Client, RequestFactory

from mcpapi import views
from tests.mcpapi.transport_support import PING, error_of
from tests.support.mcp import McpClient
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

pytestmark = pytest.mark.django_db


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

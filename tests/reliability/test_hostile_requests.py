"""Hostile JSON-RPC bodies (docs/reference.md#mcp-methods, #errors): whatever an authenticated
caller POSTs to /mcp (wrong types, huge numbers, deep nesting, very long strings, lone
surrogates, invalid UTF-8, random bytes), the answer is never a 5xx, never a traceback, never
an internal error (-32603), and always well-formed JSON. Oversized bodies are refused with 413
before anything parses them.

Most examples run in-process (django.test.Client re-raises any exception a view lets
through); a smaller sample goes through gunicorn, where the framing is real.
"""

import base64
import io
import json
import logging
from typing import Any

import pytest
from django.http import HttpRequest
from django.test import RequestFactory
from hypothesis import event, example, given
from hypothesis import strategies as st

from mcpapi import views
from tests.reliability.requests_support import (
    HUGE_INTEGERS,
    METHODS,
    NASTY_STRINGS,
    SURROGATE_ID,
    TOOLS,
    bodies,
    check_reply,
    json_values,
    params,
)
from tests.support.hostile import examples
from tests.support.mcp import McpClient, Registry
from tests.support.tokens import READ_TOKEN

pytestmark = pytest.mark.reliability

IN_PROCESS = examples(250, function_scoped_fixtures=True)


@given(body=bodies())
@example(body=SURROGATE_ID)
@IN_PROCESS
def test_no_hostile_body_gets_a_server_error_or_a_traceback(
    registry: Registry, mcp: McpClient, body: bytes
) -> None:
    response = mcp.post(body)
    check_reply(response.status_code, response.content, response.get("Content-Type"))


tool_calls = st.builds(
    lambda request_id, params: {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params},
    st.integers() | st.text(max_size=20) | HUGE_INTEGERS | st.sampled_from(NASTY_STRINGS),
    params,
)


@given(envelope=tool_calls)
@IN_PROCESS
def test_hostile_tool_calls_get_a_result_or_a_json_rpc_error(
    registry: Registry, mcp_zdr: McpClient, envelope: dict[str, Any]
) -> None:
    """Every tools/call request is answered with its own id: a result, a tool error or a
    clean JSON-RPC error (-32602 for bad arguments or an unknown tool), nothing else."""
    response = mcp_zdr.post(json.dumps(envelope).encode("utf-8", "surrogatepass"))
    check_reply(response.status_code, response.content, response.get("Content-Type"))
    reply = response.json()
    if envelope["params"] is not None and not isinstance(envelope["params"], dict | list):
        assert response.status_code == 400 and reply["error"]["code"] == -32600, reply
        return
    assert response.status_code == 200, response.content[:300]
    assert reply["id"] == envelope["id"]
    if "error" in reply:
        assert reply["error"]["code"] == -32602, reply
    else:
        result = reply["result"]
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
        assert {"api_version", "registry_sha", "published_at"} <= set(result["structuredContent"])
        assert result["structuredContent"]["registry_sha"] == registry.sha


# 2026-07-28 requests: the per-request _meta and the mirrored headers, each right or hostile.
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
HEADER_VALUES = st.one_of(
    st.none(),
    st.sampled_from(["2026-07-28", " 2026-07-28\t", "2025-11-25", "=?base64?", "=?base64?@@?="]),
    st.sampled_from(["=?base64?YQ==?=", "=?base64?YQ?=", "=?BASE64?YQ==?="]),
    st.sampled_from(METHODS + TOOLS),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=255), max_size=30),
)
# Mostly right headers (so that requests get past them), sometimes anything.
modern_requests = st.fixed_dictionaries(
    {
        "method": st.sampled_from(METHODS) | st.sampled_from(NASTY_STRINGS),
        "params": st.one_of(
            params.map(lambda p: {**p, "_meta": MODERN_META} if isinstance(p, dict) else p),
            st.fixed_dictionaries(
                {"_meta": json_values | st.just(MODERN_META)}, optional={"name": json_values}
            ),
        ),
        "version": st.sampled_from(["2026-07-28"] * 3) | HEADER_VALUES,
        "mcp_method": st.sampled_from(["same"] * 3) | HEADER_VALUES,
        "mcp_name": st.sampled_from(["same", "same", "base64"]) | HEADER_VALUES,
    }
)


@given(request=modern_requests)
@IN_PROCESS
def test_hostile_modern_requests_get_a_clean_answer_with_its_status(
    registry: Registry, mcp_zdr: McpClient, request: dict[str, Any]
) -> None:
    """Whatever a 2026-07-28 client's _meta and headers say, the answer is a result (200), a
    refusal of the revision (400 with -32600, -32602, -32020 or -32022; 404 with -32601), or
    202 for a notification; never a server error."""
    method, body_params = request["method"], request["params"]
    name = body_params.get("name", body_params.get("uri")) if isinstance(body_params, dict) else None
    headers: dict[str, str] = {}
    if request["version"] is not None:
        headers["MCP-Protocol-Version"] = request["version"]
    if request["mcp_method"] is not None:
        headers["Mcp-Method"] = method if request["mcp_method"] == "same" else request["mcp_method"]
    if request["mcp_name"] == "same" and isinstance(name, str):
        headers["Mcp-Name"] = name
    elif request["mcp_name"] == "base64" and isinstance(name, str):
        encoded = name.encode("utf-8", "surrogatepass")
        headers["Mcp-Name"] = "=?base64?" + base64.b64encode(encoded).decode() + "?="
    elif request["mcp_name"] not in (None, "same", "base64"):
        headers["Mcp-Name"] = request["mcp_name"]
    message = {"jsonrpc": "2.0", "id": 5, "method": method, "params": body_params}
    body = json.dumps(message).encode("utf-8", "surrogatepass")
    response = mcp_zdr.post(body, **headers)
    check_reply(response.status_code, response.content, response.get("Content-Type"))
    reply = response.json()
    event(f"{response.status_code} {reply.get('error', {}).get('code', 'result')}")
    if "result" in reply:
        assert response.status_code == 200, reply
        return
    code = reply["error"]["code"]
    expected = {-32601: {404, 200}, -32602: {400, 200}, -32600: {400}, -32020: {400}, -32022: {400}}
    assert response.status_code in expected.get(code, {200}), (response.status_code, reply)


def test_a_lone_surrogate_is_echoed_as_an_escape_not_a_server_error(
    registry: Registry, mcp: McpClient
) -> None:
    # The one hostile input the fuzzing above first found: "\ud800" is valid JSON syntax
    # for a string UTF-8 cannot encode, so echoing it back used to raise (a 500).
    for body in (
        b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "\\ud800"}',
        b'{"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "skill://\\udfff"}}',
    ):
        response = mcp.post(body)
        assert response.status_code == 200, response.content
        assert b"\\ud" in response.content  # the same escape, valid JSON
        json.loads(response.content)


def test_hostile_names_reach_the_access_log_escaped_and_bounded(
    registry: Registry, mcp: McpClient, caplog: pytest.LogCaptureFixture
) -> None:
    """A method or tool name is the client's text: it must not forge log lines, carry a lone
    surrogate a UTF-8 log stream cannot write, or flood the log."""
    caplog.set_level(logging.INFO, logger="mcpapi.access")
    mcp.post({"jsonrpc": "2.0", "id": 1, "method": "x\ud800\n2026 INFO forged line"})
    mcp.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t" * 5000}})
    first, second = [record for record in caplog.records if record.name == "mcpapi.access"]
    assert first.rpc_method == "x\\ud800\\n2026 INFO forged line"
    assert "\n" not in first.getMessage()
    assert second.tool == "t" * 100
    first.getMessage().encode("utf-8")  # writable to any UTF-8 log


# --- oversized bodies ---------------------------------------------------------------------

LIMIT = 4096


@pytest.fixture
def parse_spy(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Records every body the view hands to the JSON-RPC parser (by size)."""
    parsed: list[int] = []
    real = views.parse_jsonrpc

    def spy(body: bytes):  # type: ignore[no-untyped-def]
        parsed.append(len(body))
        return real(body)

    monkeypatch.setattr(views, "parse_jsonrpc", spy)
    return parsed


@given(extra=st.integers(1, 3 * LIMIT), filler=st.binary(min_size=1, max_size=16), declared=st.booleans())
@IN_PROCESS
def test_a_body_over_the_limit_is_413_and_never_parsed(
    registry: Registry,
    mcp: McpClient,
    parse_spy: list[int],
    settings,
    extra: int,
    filler: bytes,
    declared: bool,
) -> None:  # type: ignore[no-untyped-def]
    settings.MCP_MAX_BODY_BYTES = LIMIT
    body = (filler * (LIMIT + extra))[: LIMIT + extra]
    parse_spy.clear()
    if declared:
        response = mcp.post(body)
    else:  # chunked: no Content-Length, the view reads the stream itself up to the limit
        response = views.mcp(_chunked_request(body))
    assert response.status_code == 413
    assert json.loads(response.content)["error"]["code"] == -32600
    assert parse_spy == []


def test_a_body_of_exactly_the_limit_is_read_and_parsed(
    registry: Registry, mcp: McpClient, parse_spy: list[int], settings
) -> None:  # type: ignore[no-untyped-def]
    settings.MCP_MAX_BODY_BYTES = LIMIT

    def call(pad: str) -> dict[str, Any]:
        params = {"name": "skills_search", "arguments": {"query": "alpha"}, "_meta": {"pad": pad}}
        return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}

    body = json.dumps(call(" " * (LIMIT - len(json.dumps(call("")))))).encode()
    assert len(body) == LIMIT
    for response in (mcp.post(body), views.mcp(_chunked_request(body))):
        assert response.status_code == 200, response.content[:200]
        assert json.loads(response.content)["result"]["isError"] is False
    assert parse_spy == [LIMIT, LIMIT]


def _chunked_request(body: bytes) -> HttpRequest:
    """A request as a WSGI server hands over a chunked body: no Content-Length, an input
    stream the server ends itself (gunicorn sets wsgi.input_terminated)."""
    request = RequestFactory().post(
        "/mcp", data=b"", content_type="application/json", headers={"Authorization": f"Bearer {READ_TOKEN}"}
    )
    request.META.pop("CONTENT_LENGTH", None)
    request.META["wsgi.input"] = io.BytesIO(body)
    request.META["wsgi.input_terminated"] = True
    return request

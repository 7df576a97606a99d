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
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.http import HttpRequest
from django.test import RequestFactory
from hypothesis import event, example, given
from hypothesis import strategies as st

from mcpapi import views
from tests.support.databases import TemplateDatabase
from tests.support.e2e import server_env
from tests.support.gunicorn import GunicornServer, running_gunicorn
from tests.support.hostile import examples, json_trees
from tests.support.mcp import McpClient, Registry
from tests.support.repos import SkillRepo
from tests.support.tokens import READ_TOKEN

pytestmark = pytest.mark.reliability

IN_PROCESS = examples(250, function_scoped_fixtures=True)
OVER_HTTP = examples(40, function_scoped_fixtures=True)

METHODS = [
    "initialize",
    "notifications/initialized",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "server/discover",
    "skills/list",
    "skills/get",
]
TOOLS = ["skills_list", "skills_search", "skills_get", "skills_get_file"]
ARGUMENTS = ["id", "path", "query", "tags", "limit", "cursor", "revision", "uri", "name", "protocolVersion"]
LONG = "x" * 200_000
NASTY_STRINGS = [
    "",
    " ",
    "\x00",
    "\ud800",  # a lone surrogate: valid JSON syntax ("\\ud800"), not encodable as UTF-8
    "a\udfffb",
    "\u202e\ufeff",
    "../../../etc/passwd",
    "skill://alpha/../beta/SKILL.md",
    "%2e%2e%2f",
    "\\..\\",
    "alpha",
    "secret-ops",
    "references/guide.md",
    "2.0",
    "0" * 7,
    "f" * 40,
    LONG,
]
BAD_UTF8 = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80"]
HUGE_INTEGERS = st.sampled_from([2**63, -(2**63) - 1, 10**300, -(10**4000), 10**4299])

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    HUGE_INTEGERS,
    st.floats(),  # NaN and ±Infinity included: Python's json reads and writes them
    st.text(max_size=30),
    st.sampled_from(NASTY_STRINGS),
)
json_values = json_trees(scalars, ARGUMENTS, key_chars=8, list_items=4, object_items=4, max_leaves=20)
tool_arguments = st.one_of(
    st.fixed_dictionaries({}, optional={name: json_values for name in ARGUMENTS[:7]}),
    json_values,
)
params = st.one_of(
    st.fixed_dictionaries(
        {"name": st.sampled_from(TOOLS) | st.sampled_from(NASTY_STRINGS) | json_values},
        optional={"arguments": tool_arguments},
    ),
    st.fixed_dictionaries({}, optional={"uri": json_values, "cursor": json_values}),
    json_values,
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0"]) | json_values,
        "id": st.integers()
        | st.text(max_size=20)
        | HUGE_INTEGERS
        | st.sampled_from(NASTY_STRINGS)
        | json_values,
        "method": st.sampled_from(METHODS) | st.sampled_from(NASTY_STRINGS) | json_values,
        "params": params,
        "result": json_values,
        "error": json_values,
    },
)
# Most messages are close to valid (so they reach the tools); some are anything at all.
envelopes = st.one_of(
    messages.map(lambda m: {"jsonrpc": "2.0", "id": 1, "method": "tools/call", **m}),
    messages.map(lambda m: {"jsonrpc": "2.0", "id": 1, **m}),
    messages,
    json_values,
)


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """A request body: JSON of a hostile message, then maybe damaged or replaced."""
    body = json.dumps(draw(envelopes), ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    kind = draw(st.sampled_from(["as is", "as is", "damaged", "random bytes", "deep", "deep arguments"]))
    if kind == "damaged":
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, len(body)))
            junk = draw(
                st.binary(min_size=1, max_size=4) | st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])
            )
            body = body[:at] + junk + body[at + draw(st.integers(0, 3)) :]
    elif kind == "random bytes":
        body = draw(st.binary(max_size=200))
    elif kind == "deep":
        depth = draw(st.integers(1, 200_000))
        body = b"[" * depth + b"]" * draw(st.sampled_from([0, depth]))
    elif kind == "deep arguments":
        depth = draw(st.integers(50, 5000))
        nested = "[" * depth + "]" * depth
        tool = draw(st.sampled_from(TOOLS))
        body = (
            f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{tool}",'
            f'"arguments":{{"id":{nested},"path":{nested},"tags":{nested}}}}}}}'
        ).encode()
    return body


# Found by the fuzzing below: kept as an example every run tries first.
SURROGATE_ID = b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}'


def check_reply(status: int, content: bytes, content_type: str | None) -> None:
    """What every answer to a hostile body must be."""
    assert status < 500, (status, content[:300])
    assert b"Traceback (most recent call last)" not in content and b'File "/' not in content, content[:500]
    if not content:
        assert status in (202, 204), status
        return
    assert (content_type or "").startswith("application/json"), content_type
    reply = json.loads(content)  # well-formed JSON, and UTF-8
    if isinstance(reply, dict) and "error" in reply and isinstance(reply["error"], dict):
        # -32603 means a handler raised something unexpected: hostile input must never get there.
        assert reply["error"].get("code") != -32603, reply


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


# --- through gunicorn ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def live(template_db: TemplateDatabase, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GunicornServer]:
    workdir = tmp_path_factory.mktemp("hostile")
    with template_db.copy(workdir) as database:
        repo = SkillRepo(workdir / "repo")
        repo.add_skill("alpha", body="Alpha steps.\n", files={"references/guide.md": "# Guide\n"})
        repo.add_skill("secret-ops", body="Secret.\n", required_zdr=True)
        done = database.manage("publish", repo.commit("skills"), "--repo", str(repo.root))
        assert done.returncode == 0, done.stderr
        with running_gunicorn(server_env(database), Path(workdir)) as server:
            yield server


@pytest.fixture(scope="module")
def live_http(live: GunicornServer) -> Iterator[httpx.Client]:
    # No keep-alive: a hostile body may leave a connection unusable, and that must not
    # decide the next example.
    with httpx.Client(
        headers={"Authorization": f"Bearer {READ_TOKEN}", "Content-Type": "application/json"},
        timeout=30,
        limits=httpx.Limits(max_keepalive_connections=0),
    ) as client:
        yield client


@given(body=bodies())
@example(body=SURROGATE_ID)
@example(body=b"[" * 100_000)
@OVER_HTTP
def test_no_hostile_body_gets_a_server_error_through_gunicorn(
    live: GunicornServer, live_http: httpx.Client, body: bytes
) -> None:
    response = live_http.post(live.mcp_url, content=body)
    check_reply(response.status_code, response.content, response.headers.get("Content-Type"))


def test_oversized_bodies_are_413_through_gunicorn(live: GunicornServer, live_http: httpx.Client) -> None:
    limit = 1024 * 1024  # docs/reference.md#limits
    for body in (b"{" + b" " * limit, b"\xff" * (limit + 1)):
        response = live_http.post(live.mcp_url, content=body)
        assert response.status_code == 413, response.text[:200]

    # Chunked, with no Content-Length: refused once the limit is crossed.
    def chunks() -> Iterator[bytes]:
        for _ in range(20):
            yield b" " * (128 * 1024)

    response = live_http.post(live.mcp_url, content=chunks())
    assert response.status_code == 413

    # A declared length over the limit is refused before authentication or any read.
    with socket.create_connection(("127.0.0.1", live.port), timeout=30) as raw:
        raw.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {limit * 50}\r\n\r\n".encode()
        )
        head = raw.recv(4096)
    assert head.startswith(b"HTTP/1.1 413"), head[:200]


def test_a_body_of_exactly_one_mebibyte_is_served_through_gunicorn(
    live: GunicornServer, live_http: httpx.Client
) -> None:
    def call(pad: str) -> dict[str, Any]:
        params = {"name": "skills_search", "arguments": {"query": "alpha"}, "_meta": {"pad": pad}}
        return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}

    body = json.dumps(call(" " * (1024 * 1024 - len(json.dumps(call("")))))).encode()
    assert len(body) == 1024 * 1024
    response = live_http.post(live.mcp_url, content=body)
    assert response.status_code == 200, response.text[:200]
    assert [hit["id"] for hit in response.json()["result"]["structuredContent"]["results"]] == ["alpha"]

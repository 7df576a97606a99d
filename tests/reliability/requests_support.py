"""Hostile JSON-RPC bodies for the hostile-request tests, in process and through gunicorn: the
strategies that draw them, and the one check every reply to them must pass."""

import json

from hypothesis import strategies as st

from tests.support.hostile import json_trees

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

"""mcpapi.jsonrpc.loads reads every message body as json.loads does (the same value, of the
same types, or an error where json raises), orjson doing the common case
(docs/benchmarks.md "The floor of a cold search, session 6")."""

import json
from typing import Any

import pytest

from mcpapi.jsonrpc import LONG_DIGITS, MalformedMessage, loads, parse_message

BODIES = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
    b'"params":{"name":"skills_search","arguments":{"query":"a b"}}}',
    b'{"jsonrpc":"2.0","id":"x","method":"ping"}',
    b' {"a" : [1 , 2.5, -0, -0.0, 1e5, 1E-400, true, false, null]} ',
    b'{"a":1,"a":2,"b":3}',  # a repeated key: the last value, at the first place
    b'{"b":1,"a":2,"b":3}',
    b'"\\ud83d\\ude00 \\u00e9 \\n \\/ \\u0000"',
    '"é😀"'.encode(),
    b"12345678901234567e-3",
    b"0.30000000000000004",
    b"1.7976931348623157e308",
    b"5e-324",
    # what orjson refuses and json reads
    b"NaN",
    b"[Infinity, -Infinity]",
    b"1e400",
    b'"\\ud800"',
    b'"\\ude00\\ud83d"',
    b"\xef\xbb\xbf{}",
    '{"a": "b"}'.encode("utf-16-le"),
    '{"a": "b"}'.encode("utf-32"),
    b"[" * 200 + b"]" * 200,
    # integers at and past 64 bits, as ids
    *(
        b'{"id":%d}' % number
        for number in (2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30)
    ),
    b'{"id":"%s"}' % (b"1" * 40),
]


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_a_body_reads_as_json_reads_it(body: bytes) -> None:
    expected = json.loads(body)
    value = loads(body)
    assert repr(value) == repr(expected)
    assert _types(value) == _types(expected)


# json refuses these too (bad JSON, bad UTF-8, trailing data).
REFUSED = [b"", b"[1,]", b"01", b"1.", b'"\x01"', b"{", b"\xff", b"{} {}", b"[1] x"]


@pytest.mark.parametrize("body", REFUSED, ids=range(len(REFUSED)))
def test_what_json_refuses_is_a_parse_error(body: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(body)
    with pytest.raises(MalformedMessage) as raised:
        parse_message(body)
    assert raised.value.code == -32700


def test_nesting_past_what_either_reads_is_a_parse_error() -> None:
    with pytest.raises(MalformedMessage) as raised:
        parse_message(b"[" * 5000 + b"]" * 5000)
    assert raised.value.code == -32700


@pytest.mark.parametrize("digits", [LONG_DIGITS - 1, LONG_DIGITS, LONG_DIGITS + 1])
def test_an_id_of_any_length_stays_an_integer(digits: int) -> None:
    for sign in (1, -1):
        number = sign * int("9" * digits)
        message = parse_message(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % number)
        assert message.id == number and type(message.id) is int


def test_the_first_negative_past_64_bits_stays_an_integer() -> None:
    # -2**63 - 1 has LONG_DIGITS digits: the shortest integer orjson would read as a float.
    number = -(2**63) - 1
    assert len(str(-number)) == LONG_DIGITS
    message = parse_message(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % number)
    assert message.id == number and type(message.id) is int


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_types(item) for item in value]
    return type(value).__name__

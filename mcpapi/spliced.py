"""JSON that a tool result holds twice, encoded once in both forms, as UTF-8.

A CallToolResult carries structuredContent as an object and, as its one text content item,
the same JSON as a string (docs/reference.md#tools). A Spliced piece of that JSON holds both:
`json`, the bytes as they stand in the object, and `text`, the bytes as they stand inside the
string (escaped, without its quotes). JSON escapes each character on its own, so the text of
a concatenation is the concatenation of the texts: a page of skills is joined from pieces kept
per skill (mcpapi.wire), and nothing of it is encoded again, escaped again, or converted
between str and UTF-8 per request.

The bytes are exactly those of dumps_text, string_text and json_utf8 over the whole
(tests/mcpapi/test_spliced.py compares them).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from mcpapi.jsonrpc import dumps_text, json_utf8, string_text


@dataclass(frozen=True, slots=True)
class Spliced:
    """A piece of JSON as UTF-8: as it stands (`json`) and as the characters of a JSON string
    (`text`: escaped, no quotes)."""

    json: bytes
    text: bytes


def plain(value: Any) -> Spliced:
    """`value` encoded: strings, integers, booleans, None, lists, tuples and dicts with string
    keys. No floats: orjson writes some of them otherwise than json, and no tool field is one."""
    try:
        encoded = orjson.dumps(value)
    except TypeError:  # a lone surrogate, an integer past 64 bits: json's text, as string_text
        return raw(dumps_text(value))
    # orjson's JSON holds no control character and no lone surrogate, so as a JSON string only
    # its backslashes and quotes are escaped (two bytes no multi-byte UTF-8 character holds).
    return Spliced(encoded, encoded.replace(b"\\", b"\\\\").replace(b'"', b'\\"'))


def plain_json(value: Any) -> bytes:
    """The `json` of plain(value), without its text (an answer that holds it once)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json_utf8(dumps_text(value))


def raw(json_text: str) -> Spliced:
    """JSON text encoded elsewhere (a frontmatter stored at publish), in both forms."""
    return Spliced(json_utf8(json_text), json_utf8(string_text(json_text)[1:-1]))


def member(key: str, value: Spliced) -> Spliced:
    """`"key":value`, one member of an object."""
    head = _keys.get(key)
    if head is None:
        encoded = plain(key)
        head = _keys[key] = Spliced(encoded.json + b":", encoded.text + b":")
    return Spliced(head.json + value.json, head.text + value.text)


# `"key":` in both forms, kept: the keys are the tools' own few names.
_keys: dict[str, Spliced] = {}


def inner(value: Spliced) -> Spliced:
    """The members of an object, or the items of an array, without the brackets."""
    return Spliced(value.json[1:-1], value.text[1:-1])


def enclosed(opening: bytes, parts: Iterable[Spliced], closing: bytes) -> Spliced:
    """The members (or items) of `parts`, in order, comma-separated within the brackets; an
    empty part (an object with no members) adds nothing."""
    kept = [part for part in parts if part.json]
    return Spliced(
        opening + b",".join([part.json for part in kept]) + closing,
        opening + b",".join([part.text for part in kept]) + closing,
    )


def json_object(parts: Iterable[Spliced]) -> Spliced:
    """The object made of the members of every part."""
    return enclosed(b"{", parts, b"}")


def json_array(items: Iterable[Spliced]) -> Spliced:
    return enclosed(b"[", items, b"]")

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

# A memoryview: a slice of a piece, not copied (inner()).
Buffer = bytes | memoryview


# Not frozen: made for every hit of a page, and a frozen dataclass costs an object.__setattr__
# call a field (docs/benchmarks.md, "The page of a cold search, session 6"). Never changed.
@dataclass(slots=True)
class Spliced:
    """A piece of JSON as UTF-8: as it stands (`json`) and as the characters of a JSON string
    (`text`: escaped, no quotes)."""

    json: Buffer
    text: Buffer


@dataclass(slots=True)
class Pieces:
    """A value as the pieces of each form, in order, not joined: they are joined once, into the
    answer that holds the value (chunks()), so that a page is not copied on the way."""

    json: list[Buffer]
    text: list[Buffer]

    def joined(self) -> Spliced:
        return Spliced(b"".join(self.json), b"".join(self.text))


def plain(value: Any) -> Spliced:
    """`value` encoded: strings, integers, booleans, None, lists, tuples and dicts with string
    keys. No floats: orjson writes some of them otherwise than json, and no tool field is one
    (nor a datetime, dataclass or UUID, which orjson writes and json refuses)."""
    try:
        encoded = orjson.dumps(value)
    except TypeError:  # a lone surrogate, an integer past 64 bits: json's text, as string_text
        return raw(dumps_text(value))
    # orjson's JSON holds no control character and no lone surrogate, so as a JSON string only
    # its backslashes and quotes are escaped (two bytes no multi-byte UTF-8 character holds).
    return Spliced(encoded, encoded.replace(b"\\", b"\\\\").replace(b'"', b'\\"'))


def lasting_open(value: dict[str, Any]) -> Spliced:
    """plain(value) less the object's closing brace (an object of at least one member), to be
    kept for the life of an index (a skill's metadata object): a page closes it, or puts other
    members after its own (open_objects_array; mcpapi.wire.search_results). Each form is a
    slice, a copy of its own size: orjson hands out its whole working buffer, at least 4 KiB
    and about eight times the JSON (8,173 bytes for a JSON of 608, orjson 3.13), which bytes'
    getsizeof does not show: kept as it came, a worker's memo of 9,505 metadata objects took
    37 MB where 6 MB was written (docs/benchmarks.md, "Every cache full, session 5"). When
    nothing was escaped the `text` is the `json` itself, and so is its slice."""
    encoded = plain(value)
    json = encoded.json[:-1]
    return Spliced(json, json if encoded.text is encoded.json else encoded.text[:-1])


def open_objects_array(heads: list[Spliced]) -> Pieces:
    """The array of the objects whose members `heads` open (lasting_open), each closed as it is."""
    if not heads:
        return Pieces([b"[]"], [b"[]"])
    json_pieces: list[Buffer] = [b"["]
    text_pieces: list[Buffer] = [b"["]
    for head in heads:
        json_pieces += (head.json, b"},")
        text_pieces += (head.text, b"},")
    json_pieces[-1] = text_pieces[-1] = b"}]"
    return Pieces(json_pieces, text_pieces)


def kept(encoded: bytes) -> bytes:
    """orjson's output copied to its own size, for bytes held beyond the request that made them
    (see lasting_open: orjson's bytes hold at least 4 KiB whatever their length)."""
    return _EMPTY.join((encoded, _EMPTY))


_EMPTY = b""


def plain_json(value: Any) -> bytes:
    """The `json` of plain(value), without its text (an answer that holds it once)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json_utf8(dumps_text(value))


def raw(json_text: str) -> Spliced:
    """JSON text encoded elsewhere (a frontmatter stored at publish), in both forms."""
    return Spliced(json_utf8(json_text), json_utf8(string_text(json_text)[1:-1]))


def member(key: str, value: "Spliced | Pieces") -> "Part":
    """`"key":value`, one member of an object (its pieces, written one after the other)."""
    return (member_key(key), value)


def member_key(key: str) -> Spliced:
    """`"key":` in both forms."""
    head = _keys.get(key)
    if head is None:
        encoded = plain(key)
        head = _keys[key] = Spliced(b"".join((encoded.json, b":")), b"".join((encoded.text, b":")))
    return head


# `"key":` in both forms, kept: the keys are the tools' own few names.
_keys: dict[str, Spliced] = {}

# One member of an object or one item of an array: pieces written one after the other, so that
# a long value (a page, a file's text) is copied once, into the answer, and not on the way.
Part = tuple[Spliced | Pieces, ...]


def inner(value: Spliced) -> Part:
    """The members of an object, or the items of an array, without the brackets (no copy)."""
    return (Spliced(memoryview(value.json)[1:-1], memoryview(value.text)[1:-1]),)


def chunks(opening: bytes, parts: Iterable[Part], closing: bytes) -> tuple[list[Buffer], list[Buffer]]:
    """The pieces of the members (or items) of `parts`, in order, comma-separated within the
    brackets, in each form; a part of nothing (an object with no members) adds nothing."""
    json_chunks: list[Buffer] = [opening]
    text_chunks: list[Buffer] = [opening]
    for part in parts:
        if len(part) == 1 and not part[0].json:  # an object with no members (a member is two)
            continue
        if len(json_chunks) > 1:
            json_chunks.append(b",")
            text_chunks.append(b",")
        for piece in part:
            if isinstance(piece, Pieces):
                json_chunks += piece.json
                text_chunks += piece.text
            else:
                json_chunks.append(piece.json)
                text_chunks.append(piece.text)
    json_chunks.append(closing)
    text_chunks.append(closing)
    return json_chunks, text_chunks


def enclosed(opening: bytes, parts: Iterable[Part], closing: bytes) -> Spliced:
    json_chunks, text_chunks = chunks(opening, parts, closing)
    return Spliced(b"".join(json_chunks), b"".join(text_chunks))


def json_object(parts: Iterable[Part]) -> Spliced:
    """The object made of the members of every part."""
    return enclosed(b"{", parts, b"}")

"""Opaque, signed pagination cursors bound to a revision and the query that made them.

A cursor carries the registry SHA it was made from, a digest of the query (the
tool or method name and its filters) and a position, signed with the project's
SECRET_KEY (so every instance of a deployment accepts every other's cursors).
Reading one back tells apart three cases: not ours or altered (InvalidCursor),
ours but from another revision (StaleCursor), and ours for another query
(InvalidCursor). Positions are only ever produced by this server.
"""

import base64
import functools
import hashlib
import hmac
import json
from typing import Any

import orjson
from django.conf import settings
from django.utils.encoding import force_bytes

from mcpapi.jsonrpc import dumps_text

_SALT = "mcpapi.cursor.v1"
# Real cursors are ~110 characters; anything much longer is not one of ours.
MAX_CURSOR_CHARS = 512


class InvalidCursor(Exception):
    """Tampered, foreign, malformed, or made for another query."""


class CursorPastTheEnd(InvalidCursor):
    """Ours and for this query, but beyond its results (made by another version of the code)."""


class StaleCursor(Exception):
    """Made by this server for a revision that is no longer the active one."""


def query_key(*parts: Any) -> str:
    """A short digest of what a cursor's query is (name, filters, clearance: strings, booleans
    and lists of strings). The digest of dumps_text(parts) as UTF-8, which orjson writes in a
    fifth of the instructions (docs/benchmarks.md, "The page of a cold search, session 6"): the
    same bytes for these values (mcpapi.jsonrpc.string_text). orjson refuses a lone surrogate,
    and so does the UTF-8 codec, with the error of before."""
    try:
        encoded = orjson.dumps(parts)
    except TypeError:
        encoded = dumps_text(parts).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:24]


def encode(revision: str, query: str, position: int) -> str:
    """The cursor of `position` in `query`'s results on `revision`: the base64 of
    `json.dumps([revision, query, position], separators=(",", ":"))`, a colon, its signature.
    orjson writes that JSON when it is ASCII without DEL (json escapes anything else, orjson
    does not; tests/mcpapi/test_cursors.py), and the cursor stays bytes until it is whole."""
    payload: bytes | None
    try:
        payload = orjson.dumps([revision, query, position])
    except TypeError:  # a lone surrogate, an integer past 64 bits
        payload = None
    if payload is None or not payload.isascii() or b"\x7f" in payload:
        payload = json.dumps([revision, query, position], separators=(",", ":")).encode("latin-1")
    value = base64.urlsafe_b64encode(payload).rstrip(b"=")
    return (b"%s:%s" % (value, _signature(value, settings.SECRET_KEY))).decode()


def decode(cursor: str, revision: str, query: str) -> int:
    """The position in `cursor`, if it was made for `query` on `revision`."""
    if len(cursor) > MAX_CURSOR_CHARS:
        raise InvalidCursor()
    value, colon, signature = cursor.rpartition(":")
    try:
        signed, given = value.encode(), signature.encode()  # a lone surrogate: UnicodeEncodeError
        if not colon or not any(
            hmac.compare_digest(given, _signature(signed, secret))
            # Signer reads an empty key as SECRET_KEY, checked first: never an empty key's HMAC.
            for secret in (settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS)
            if secret
        ):
            raise InvalidCursor()
        payload = json.loads(base64.urlsafe_b64decode(signed + b"=" * (-len(signed) % 4)).decode("latin-1"))
    except ValueError:  # bad base64 (binascii.Error), UTF-8 or JSON
        raise InvalidCursor() from None
    if (
        not isinstance(payload, list)
        or len(payload) != 3
        or not all(isinstance(part, str) for part in payload[:2])
        or isinstance(payload[2], bool)
        or not isinstance(payload[2], int)
        or payload[2] < 0
    ):
        raise InvalidCursor()
    made_for_revision, made_for_query, position = payload
    if made_for_revision != revision:
        raise StaleCursor()
    if made_for_query != query:
        raise InvalidCursor()
    return position


# Cursors are django.core.signing.Signer(salt=_SALT).sign_object's, byte for byte, so that every
# cursor handed out stays valid (and every instance of a deployment reads another's); made here
# because Signer works out its HMAC key again for every cursor it signs or checks: two SHA-256
# passes and an HMAC set-up, most of the 30-40 µs a list page spent on its two cursors. The key
# of a secret is worked out once (tests/mcpapi/test_cursors.py compares with Signer).
_SIGNER_SALT = (_SALT + "signer").encode()


@functools.lru_cache(maxsize=8)  # SECRET_KEY and its fallbacks
def _keyed(secret: str | bytes) -> "hmac.HMAC":
    return hmac.new(hashlib.sha256(_SIGNER_SALT + force_bytes(secret)).digest(), digestmod=hashlib.sha256)


def _signature(value: bytes, secret: str | bytes) -> bytes:
    mac = _keyed(secret).copy()
    mac.update(value)
    return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=")

"""Opaque, signed pagination cursors bound to a revision and the query that made them.

A cursor carries the registry SHA it was made from, a digest of the query (the
tool or method name and its filters) and a position, signed with the project's
SECRET_KEY (so every instance of a deployment accepts every other's cursors).
Reading one back tells apart three cases: not ours or altered (InvalidCursor),
ours but from another revision (StaleCursor), and ours for another query
(InvalidCursor). Positions are only ever produced by this server.
"""

import hashlib
from typing import Any

from django.core import signing

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
    """A short digest of what a cursor's query is (name, filters, clearance)."""
    return hashlib.sha256(dumps_text(parts).encode("utf-8")).hexdigest()[:24]


def encode(revision: str, query: str, position: int) -> str:
    return signing.Signer(salt=_SALT).sign_object([revision, query, position])


def decode(cursor: str, revision: str, query: str) -> int:
    """The position in `cursor`, if it was made for `query` on `revision`."""
    if len(cursor) > MAX_CURSOR_CHARS:
        raise InvalidCursor()
    try:
        payload = signing.Signer(salt=_SALT).unsign_object(cursor)
    except (signing.BadSignature, ValueError):
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

"""One paginator over the signed cursors of mcpapi.cursors, for every list a client pages
through: tool results, file bytes, resources (docs/reference.md#tools).

The server picks the page size; a cursor is bound to the revision and to the query that made
it (what is listed, its filters, the caller's clearance), so a page never mixes snapshots or
views. Reading one back raises cursors.InvalidCursor (not ours, altered, another query;
CursorPastTheEnd: beyond the results) or cursors.StaleCursor (another revision); each
caller answers those in its own terms (a tool error; for a protocol method, bad_cursor()).
"""

from dataclasses import dataclass
from typing import Any

from mcpapi import cursors
from mcpapi.jsonrpc import InvalidParams


@dataclass(slots=True)  # made on every request: a frozen dataclass costs a setattr call a field
class Page:
    start: int
    end: int
    next_cursor: str | None  # None on the last page


class Paginator:
    __slots__ = ("_query", "_query_parts", "revision")

    def __init__(self, revision: str, *query: Any) -> None:
        self.revision = revision
        self._query_parts = query
        self._query: str | None = None

    @property
    def query(self) -> str:
        """The digest of the query, worked out the first time a cursor is read or made."""
        if self._query is None:
            self._query = cursors.query_key(*self._query_parts)
        return self._query

    def start(self, cursor: str | None) -> int:
        """The position `cursor` points at; 0 without one."""
        return 0 if cursor is None else cursors.decode(cursor, self.revision, self.query)

    def page(self, cursor: str | None, total: int, limit: int) -> Page:
        """Up to `limit` of `total` items, from where `cursor` points."""
        start = self.start(cursor)
        if start > total:
            raise cursors.CursorPastTheEnd()
        end = min(start + limit, total)
        return Page(start, end, self.cursor_at(end) if end < total else None)

    def next_after(self, page: Page, count: int) -> str | None:
        """The cursor after the first `count` items of `page`: a page may hold fewer than it
        asked for when the rest would not fit in one answer (docs/reference.md#answer-sizes)."""
        if count < page.end - page.start:
            return self.cursor_at(page.start + count)
        return page.next_cursor

    def cursor_at(self, position: int) -> str:
        return cursors.encode(self.revision, self.query, position)


def bad_cursor() -> InvalidParams:
    """What a protocol method (not a tool) answers for a cursor it cannot use: -32602."""
    return InvalidParams("Invalid params: the cursor is not valid; list again from the start.")

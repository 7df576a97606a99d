"""Helpers for the tests that talk to the server through the official MCP Python SDK."""

from mcp.client import Client


async def all_resource_uris(client: Client) -> list[str]:
    """Every resource URI the server lists, following next_cursor to the last page."""
    uris: list[str] = []
    cursor = None
    while True:
        page = await client.list_resources(cursor=cursor)
        uris += [resource.uri for resource in page.resources]
        cursor = page.next_cursor
        if cursor is None:
            return uris

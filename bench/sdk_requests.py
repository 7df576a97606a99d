"""How many HTTP requests the official MCP Python SDK client makes for a few rounds of
skills_list → skills_search → skills_get → skills_get_file, in each protocol era, and whether
2026-07-28's `ttlMs` saves any (docs/benchmarks.md, "Requests of the SDK client").

    .venv/bin/python -m bench.sdk_requests [--rounds 3]

One registry (the standard test skills, tests/support/standard.py) served by a real gunicorn
on 127.0.0.1; each client counted twice over: every HTTP request its transport sends (an
httpx event hook: the HTTP method and the JSON-RPC method of each POST), and the access lines
gunicorn's registry wrote meanwhile (LOG_FORMAT plain: one `mcpapi.access` line per request).

Eras and caches: `auto` (the SDK's default, ends on 2026-07-28) with its default response
cache, which honours `ttlMs`; `auto` with that cache off (`cache=None`): what `ttlMs` saves;
`legacy` (initialize, 2025-11-25). Shapes of use:

- one session, the rounds one after another;
- one session, tools/list asked again before each round (a host refreshing its tools every
  turn);
- a new session for each round (an agent started per task) that lists the tools first, the
  2026-07-28 client with its cache on sharing one cache store between its sessions
  (CacheConfig(store=..., partition=..., target_id=...): the same caller, the same server).

Without a tools/list of its own, a session fetches the listing once for the output schemas
(mcp.client.session's call_tool), past the Client's response cache.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client import Client
from mcp.client.caching import CacheConfig, InMemoryResponseCacheStore
from mcp.client.streamable_http import streamable_http_client

from tests.support.e2e import RegistryServer, serving_standard_registry

ERAS: dict[str, Callable[[], dict[str, Any]]] = {
    "2026-07-28, SDK cache on (ttlMs)": lambda: {},
    "2026-07-28, SDK cache off": lambda: {"cache": None},
    "2025-11-25 (initialize)": lambda: {"mode": "legacy"},
}
# (label, tools/list before each round, a new session for each round)
SHAPES = (
    ("one session", False, False),
    ("one session, tools/list every round", True, False),
    ("a new session every round, tools/list first", True, True),
)


def describe(request: httpx2.Request) -> str:
    """`POST tools/call skills_get`, `GET`, `DELETE`: what one HTTP request asked for."""
    if request.method != "POST":
        return request.method
    try:
        message = json.loads(request.content or b"{}")
    except ValueError:
        return "POST (unparsed)"
    messages = message if isinstance(message, list) else [message]
    names = []
    for one in messages:
        method = one.get("method", "(response)")
        if method == "tools/call":
            method += " " + str((one.get("params") or {}).get("name"))
        names.append(method)
    return "POST " + ", ".join(names)


async def one_round(client: Client, relist: bool) -> None:
    if relist:
        await client.list_tools()
    await client.call_tool("skills_list", {})
    await client.call_tool("skills_search", {"query": "review"})
    await client.call_tool("skills_get", {"id": "alpha"})
    await client.call_tool("skills_get_file", {"id": "alpha", "path": "references/guide.md"})


def count(
    server: RegistryServer, options: dict[str, Any], shape: tuple[str, bool, bool], rounds: int
) -> Counter[str]:
    """The HTTP requests the SDK sends for `rounds` rounds used in `shape`."""
    seen: Counter[str] = Counter()
    _, relist, reconnect = shape

    async def record(request: httpx2.Request) -> None:
        seen[describe(request)] += 1

    async def session(http: httpx2.AsyncClient, times: int) -> None:
        transport = streamable_http_client(server.mcp_url, http_client=http)
        async with Client(transport, **options) as client:
            for _ in range(times):
                await one_round(client, relist=relist)

    async def main() -> None:
        headers = {"Authorization": f"Bearer {server.read_token}"}
        hooks: dict[str, list[Callable[[httpx2.Request], Awaitable[None]]]] = {"request": [record]}
        async with httpx2.AsyncClient(headers=headers, timeout=30, event_hooks=hooks) as http:
            if reconnect:
                for _ in range(rounds):
                    await session(http, 1)
            else:
                await session(http, rounds)

    if reconnect and options.get("cache", "default") is not None and "mode" not in options:
        # One store for every session of this caller, so a later session may reuse a list.
        store = InMemoryResponseCacheStore()
        options = {**options, "cache": CacheConfig(store=store, partition="bench", target_id=server.mcp_url)}
    anyio.run(main)
    return seen


def access_lines(log_path: Path) -> int:
    """The registry's access lines so far (LOG_FORMAT plain)."""
    text = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
    return sum(1 for line in text.splitlines() if " mcpapi.access " in line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3, choices=range(1, 21), metavar="1..20")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sdk-requests-") as tmp:
        with serving_standard_registry(Path(tmp), LOG_FORMAT="plain") as server:
            log_path = Path(tmp) / "gunicorn.log"
            print(f"{args.rounds} rounds of skills_list, skills_search, skills_get, skills_get_file")
            print("| shape | era | HTTP requests | access lines | of which |")
            print("|---|---|---:|---:|---|")
            for shape in SHAPES:
                for era, options in ERAS.items():
                    before = access_lines(log_path)
                    seen = count(server, options(), shape, args.rounds)
                    time.sleep(0.3)  # the workers' last access lines reach the file
                    logged = access_lines(log_path) - before
                    overhead = ", ".join(
                        f"{what.removeprefix('POST ')} {times}"
                        for what, times in sorted(seen.items())
                        if not what.startswith("POST tools/call")
                    )
                    print(f"| {shape[0]} | {era} | {sum(seen.values())} | {logged} | {overhead} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The SHA-256 of every cold answer's bytes, one line each: run it on two trees and compare the
files to show a change of the serving code changed no answer.

    .venv/bin/python -m bench.corpus build --skills 1000 --out /dev/shm/corpus-1000
    .venv/bin/python -m bench.answer_hashes --corpus /dev/shm/corpus-1000 --db /dev/shm/ah.sqlite3 \
        --out /tmp/after.txt
    (cd OTHER-TREE && PYTHONPATH=. python -m bench.answer_hashes ... --out /tmp/before.txt)
    cmp /tmp/before.txt /tmp/after.txt

The requests (bench.encode_once's cold ones, the answer cache off): every skills_list page,
every skill, file and SKILL.md, every resources/list page, SEARCHES cold searches, a few other
arguments (tags, limits) and errors (unknown ids, bad paths and cursors, lone surrogates); each
in the legacy era and in 2026-07-28's (its _meta and headers); every page of a file with more
than one. One line a request: era, HTTP status, SHA-256 and length of the body, the request.

With --search-only: only searches, for a change of the ranking or of its pages (each in both
eras): every one of bench/cold.py's COLD_QUERIES queries, those of the search evaluation
(bench/search/queries.txt) and the words of both, with other limits and tags, the further
pages of some by their cursors; and again as a caller cleared for ZDR skills (its own index).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from bench.cold import search_queries
from bench.encode_once import HEADERS, _rpc, _setup, _tool, operations

SEARCHES = 300
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
NAME_BEARING = {"tools/call": "name", "resources/read": "uri"}


def _bodies(ops: dict[str, tuple[bytes, list[bytes]]]) -> list[bytes]:
    kinds = ("skills_list", "skills_get", "skills_get_file", "resources/read", "resources/list")
    bodies = [body for kind in kinds for body in ops[kind][1]]
    bodies += [_tool("skills_search", query=query, limit=20) for query in search_queries(SEARCHES)]
    some_id = json.loads(ops["skills_get"][1][0])["params"]["arguments"]["id"]
    bodies += [
        _tool("skills_search", query="postgres", limit=20, tags=["postgres"]),
        _tool("skills_list", limit=50, tags=["postgres"]),
        _tool("skills_list", limit=200),
        _tool("skills_list", limit=1),
        _tool("skills_get", id="nope"),
        _tool("skills_get", id="\ud800x"),
        _tool("skills_get", id=3),
        _tool("skills_get_file", id="nope", path="a"),
        _tool("skills_get_file", id=some_id, path="../x"),
        _tool("skills_get_file", id="a", path="b", cursor="zzz"),
        _tool("skills_list", cursor="bad"),
        _tool("skills_list", limit=100000),
        _tool("skills_list", revision="abc"),
        _tool("skills_search", query="x\ud800 y"),
        _rpc("resources/read", {"uri": "skill://nope/SKILL.md"}),
    ]
    return bodies


ZDR_TOKEN = "bench-static-zdr-token"
QUERIES_FILE = Path(__file__).with_name("search") / "queries.txt"
# Searches of --search-only whose pages are followed by their cursors, and how many pages.
FOLLOWED, FOLLOWED_PAGES = 200, 4


def _search_bodies() -> list[bytes]:
    queries = search_queries()
    evaluation = [
        line.split("|")[1].strip()
        for line in QUERIES_FILE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    words = sorted({word for query in queries + evaluation for word in query.split()})
    bodies = [_tool("skills_search", query=query, limit=20) for query in queries + evaluation + words]
    for limit in (1, 5, 40, 41, 50):
        bodies += [_tool("skills_search", query=query, limit=limit) for query in queries[:100] + evaluation]
    for tag in ("postgres", "testing", "security"):
        bodies += [
            _tool("skills_search", query=query, limit=20, tags=[tag]) for query in queries[:100] + words
        ]
    bodies += [_tool("skills_search", query=query, limit=10, tags=["python", "testing"]) for query in words]
    return bodies


def _post(client: Any, body: bytes, era: str, token: str | None = None) -> tuple[str, Any]:
    message = json.loads(body)
    headers = dict(HEADERS)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if era == "modern":
        message.setdefault("params", {})["_meta"] = META
        headers["MCP-Protocol-Version"] = MODERN
        headers["Mcp-Method"] = message["method"]
        key = NAME_BEARING.get(message["method"])
        if key and isinstance(message["params"].get(key), str):
            headers["Mcp-Name"] = message["params"][key]
    sent = json.dumps(message)
    return sent, client.post("/mcp", data=sent, content_type="application/json", headers=headers)


def _searches(client: Any, out: Any) -> int:
    """--search-only: every search of _search_bodies in both eras, by both callers, the first
    FOLLOWED of them followed by their cursors for FOLLOWED_PAGES pages."""
    count = 0
    for token in (None, ZDR_TOKEN):
        for number, body in enumerate(_search_bodies()):
            for era in ("legacy", "modern"):
                sent, response = _post(client, body, era, token)
                out.write(("zdr " if token else "") + _line(era, response, sent))
                count += 1
                arguments = json.loads(sent)["params"]["arguments"]
                for _ in range(FOLLOWED_PAGES - 1 if number < FOLLOWED else 0):
                    result = json.loads(response.content).get("result", {})
                    cursor = result.get("structuredContent", {}).get("next_cursor")
                    if not cursor:
                        break
                    sent, response = _post(
                        client, _tool("skills_search", **{**arguments, "cursor": cursor}), era, token
                    )
                    out.write(("zdr " if token else "") + _line(era, response, sent))
                    count += 1
    return count


def _line(era: str, response: Any, sent: str) -> str:
    digest = hashlib.sha256(response.content).hexdigest()
    return f"{era} {response.status_code} {digest} {len(response.content)} {sent[:120]}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--search-only", action="store_true", help="only searches (see above)")
    args = parser.parse_args(argv)

    _setup(args.corpus, args.db, {"SKILLS_ZDR_TOKENS": ZDR_TOKEN})
    from django.test import Client

    from mcpapi.protocol import dispatcher

    client = Client()
    ops = operations(client)
    dispatcher.answers = None  # every answer made afresh, as the cold rows' server makes it
    count = 0
    if args.search_only:
        with args.out.open("w") as out:
            count = _searches(client, out)
        print(f"{count} answers hashed into {args.out}")
        return 0
    with args.out.open("w") as out:
        for body in _bodies(ops):
            for era in ("legacy", "modern"):
                sent, response = _post(client, body, era)
                out.write(_line(era, response, sent))
                count += 1
                message = json.loads(sent)
                if message["method"] != "tools/call" or message["params"]["name"] != "skills_get_file":
                    continue
                cursor = json.loads(response.content).get("result", {}).get("structuredContent", {})
                cursor = cursor.get("next_cursor") if isinstance(cursor, dict) else None
                while cursor:  # the file's further pages
                    arguments = {**message["params"]["arguments"], "cursor": cursor}
                    sent, response = _post(client, _tool("skills_get_file", **arguments), era)
                    out.write(_line(era, response, sent))
                    count += 1
                    cursor = json.loads(response.content)["result"]["structuredContent"].get("next_cursor")
    print(f"{count} answers hashed into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

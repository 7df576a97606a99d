"""The cold rows: requests no cache can serve, each a distinct one, cycled by wrk (bench/wrk/cycle.lua)
against the registry with its answer cache off (bench/cold_app/wsgi.py).

- skills_search: COLD_QUERIES distinct two-word queries of the corpus's own topic words (tags
  and keywords, as the warm row's query is; not the common verbs, which make the broad row's),
  as agents looking for different skills ask them;
- skills_get and resources/read: every visible skill (its SKILL.md);
- skills_get_file: every served file of a visible skill (at most 64 KiB, as the warm row's);
- skills_list: every page of 50, following the cursors;
- skills/list (the skills extension): every page, when the corpus has native skills (the open
  dialect's); a registry-dialect corpus has none, and the row is left out.

ping has no cold row: nothing about it is kept.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bench import corpus as corpus_mod
from bench.corpus_text import KEYWORDS, TAGS
from bench.load import Operation, check_answer, post_json, tool_call
from bench.measure import BenchError

COLD_QUERIES = 4096
COLD_SEED = 18
# Every page is fetched once to collect its cursor; a bound on the walk all the same.
MAX_PAGES = 1000


def cold_name(operation: str, count: int, what: str) -> str:
    return f"{operation} (cold: {count:,} {what})"


def is_cold(name: str) -> bool:
    return "(cold:" in name


def search_queries(count: int = COLD_QUERIES, seed: int = COLD_SEED) -> list[str]:
    """`count` distinct two-word queries of the corpus vocabulary, in a seeded order."""
    words = sorted(set(TAGS) | set(KEYWORDS))
    pairs = [f"{a} {b}" for a in words for b in words if a < b]
    if len(pairs) < count:
        raise BenchError(f"the corpus vocabulary makes only {len(pairs)} distinct queries")
    return random.Random(seed).sample(pairs, count)


def _pages(
    url: str, token: str, first: Callable[[str | None], dict], next_of: Callable[[dict], str | None]
) -> list[dict]:
    bodies: list[dict] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        body = first(cursor)
        status, payload, _ = post_json(url, body, token)
        if status != 200 or "error" in payload:
            raise BenchError(f"walking the pages: HTTP {status} {str(payload)[:300]}")
        bodies.append(body)
        cursor = next_of(payload.get("result") or {})
        if cursor is None:
            return bodies
    raise BenchError(f"more than {MAX_PAGES} pages")


def cold_operations(corpus: corpus_mod.Corpus, url: str, token: str) -> list[tuple[str, list[dict]]]:
    """Each cold row's name and its distinct request bodies (the pages walked at `url`)."""
    visible = sorted((entry for entry in corpus.entries if not entry.required_zdr), key=lambda e: e.id)
    files = [(entry.id, f.path) for entry in visible for f in entry.files if f.size <= 65536]

    def list_page(cursor: str | None) -> dict:
        return tool_call("skills_list", {"limit": 50, **({"cursor": cursor} if cursor else {})})

    def extension_page(cursor: str | None) -> dict:
        return {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "skills/list",
            "params": {"cursor": cursor} if cursor else {},
        }

    pages = _pages(
        url, token, list_page, lambda result: (result.get("structuredContent") or {}).get("next_cursor")
    )
    queries = search_queries()
    rows = [
        (cold_name("skills_list", len(pages), "pages of 50"), pages),
        (
            cold_name("skills_search", len(queries), "distinct queries"),
            [tool_call("skills_search", {"query": query, "limit": 20}) for query in queries],
        ),
        (
            cold_name("skills_get", len(visible), "skills"),
            [tool_call("skills_get", {"id": e.id}) for e in visible],
        ),
        (
            cold_name("skills_get_file", len(files), "files"),
            [tool_call("skills_get_file", {"id": i, "path": p}) for i, p in files],
        ),
        (
            cold_name("resources/read", len(visible), "SKILL.md"),
            [
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "resources/read",
                    "params": {"uri": f"skill://{e.id}/SKILL.md"},
                }
                for e in visible
            ],
        ),
    ]
    status, payload, _ = post_json(url, extension_page(None), token)
    if status == 200 and (payload.get("result") or {}).get("skills"):
        extension = _pages(url, token, extension_page, lambda result: result.get("nextCursor"))
        rows.append((cold_name("skills/list", len(extension), "pages"), extension))
    return rows


def extension_operation(url: str, token: str) -> Operation | None:
    """The warm skills/list row (its first page), when the corpus has native skills."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": {}}
    status, payload, _ = post_json(url, body, token)
    if status == 200 and (payload.get("result") or {}).get("skills"):
        return Operation("skills/list", body)
    return None


def check_sample(name: str, url: str, token: str, bodies: list[dict], sample: int = 8) -> None:
    """A few of a cold row's requests, spread over the list, must be real successes."""
    step = max(1, len(bodies) // sample)
    for body in bodies[::step]:
        status, payload, _ = post_json(url, body, token)
        problem = check_answer(Operation(name.split(" (")[0], body), status, payload)
        # The last list page holds fewer than 50; a distinct query may match nothing.
        if problem and not problem.startswith(("skills_list returned", "skills_search found nothing")):
            raise BenchError(f"{name}: not a successful answer, not timing it: {problem}")

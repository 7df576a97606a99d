"""What search costs in-process at N generated skills: building the index, a cold query and a
warm one (each with its first page of hits, match reasons and excerpts, as skills_search
builds it), a later page of a ranking already made (hits built afresh), and the index's size.

    .venv/bin/python -m bench.search.cpu --skills 10000
    .venv/bin/python -m bench.search.cpu --skills 10000 --module-file /tmp/old_search.py

CPU is time.process_time (this process only), so other work on a shared machine moves it
little. Memory is what tracemalloc sees allocated by SearchIndex(...) and still held.
`--module-file` loads another implementation of catalog.search from a file (e.g. an older
revision: `git show REV:catalog/search.py > /tmp/old_search.py`), for before/after figures.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import random
import sys
import time
import tracemalloc
from types import ModuleType

from bench import corpus, corpus_text
from bench.search.setup import configure

PAGE = 20
LATER_PAGE = 60  # ranks 60-79: past the hits a remembered ranking keeps
EXCERPT_CHARS = 240
FIXED_QUERIES = ("postgres migrations", "deploy rollback")


def generated_skills(count: int, seed: int) -> list:
    """The uncleared view of bench.corpus's generated skills, sorted by id, as SkillEntry."""
    from catalog.entries import SkillEntry
    from catalog.skill import FIELD_TYPES
    from catalog.skillfile import parse_skill_file

    _, files = corpus.generate_skills(count, seed)
    skills = []
    for path, text in files.items():
        if not path.endswith("/SKILL.md"):
            continue
        parsed = parse_skill_file(text.encode())
        metadata = parsed.metadata
        assert metadata is not None, (path, parsed.problems)
        if metadata.required_zdr:
            continue
        skills.append(
            SkillEntry(
                **{name: getattr(metadata, name) for name in FIELD_TYPES},
                content_hash="0" * 64,
                instructions=parsed.instructions or "",
                skill_md_sha256="0" * 64,
                skill_md_size=len(text.encode()),
                files=(),
            )
        )
    return sorted(skills, key=lambda skill: skill.id)


def queries(count: int, seed: int) -> list[str]:
    """The serve bench's two queries, then `count` distinct seeded queries of 1-3 words drawn
    from the generator's vocabulary (tags, verbs, nouns, tools, filler words)."""
    rng = random.Random(seed)
    pool = corpus_text.TAGS + corpus_text.VERBS + corpus_text.NOUNS + corpus_text.TOOLS + corpus_text.FILLER
    found = dict.fromkeys(FIXED_QUERIES)
    while len(found) < count + len(FIXED_QUERIES):
        found[" ".join(rng.sample(pool, rng.randint(1, 3)))] = None
    return list(found)


def load_module(path: str | None) -> ModuleType:
    if path is None:
        import catalog.search

        return catalog.search
    spec = importlib.util.spec_from_file_location("search_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def forget(index: object) -> None:
    """Empty whatever per-index caches the implementation keeps, so the next query is cold."""
    for name in ("_ranked", "_substrings"):
        cache = getattr(index, name, None)
        if cache is not None:
            cache.clear()


def page(index: object, query: str, start: int = 0) -> int:
    """One page of results as skills_search builds it: hits, reasons, excerpts."""
    hits = index.search(query, ())  # type: ignore[attr-defined]
    for hit in hits[start : start + PAGE]:
        hit.match_reasons()
        hit.excerpt(EXCERPT_CHARS)
    return len(hits)


def measure(module: ModuleType, skills: list, query_list: list[str]) -> dict:
    gc.collect()
    started = time.process_time()
    index = module.SearchIndex(skills)
    build = time.process_time() - started

    matched = {}
    cold = 0.0
    for query in query_list:
        forget(index)
        started = time.process_time()
        matched[query] = page(index, query)
        cold += time.process_time() - started
    # Per query, its ranking made: the same first page again (warm), then a page that no
    # earlier request built (its hits are new).
    warm = 0.0
    later = 0.0
    rounds = 5
    for query in query_list:
        page(index, query)
        started = time.process_time()
        for _ in range(rounds):
            page(index, query)
        warm += time.process_time() - started
        started = time.process_time()
        page(index, query, start=LATER_PAGE)
        later += time.process_time() - started
    fixed = {}
    for query in FIXED_QUERIES:
        forget(index)
        started = time.process_time()
        page(index, query)
        first = time.process_time() - started
        started = time.process_time()
        for _ in range(50):
            page(index, query)
        fixed[query] = {
            "matches": matched[query],
            "cold_ms": round(first * 1000, 3),
            "warm_ms": round((time.process_time() - started) / 50 * 1000, 3),
        }
    del index
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = module.SearchIndex(skills)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del kept
    return {
        "skills": len(skills),
        "queries": len(query_list),
        "mean_matches": round(sum(matched.values()) / len(matched), 1),
        "build_s": round(build, 3),
        "cold_ms_per_query": round(cold / len(query_list) * 1000, 3),
        "warm_ms_per_query": round(warm / (rounds * len(query_list)) * 1000, 3),
        "later_page_ms_per_query": round(later / len(query_list) * 1000, 3),
        "fixed": fixed,
        "index_mb": round(held / 1e6, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--module-file", default=None, help="another catalog.search, loaded from a file")
    args = parser.parse_args(argv)
    configure()
    module = load_module(args.module_file)
    skills = generated_skills(args.skills, args.seed)
    result = measure(module, skills, queries(args.queries, args.seed))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

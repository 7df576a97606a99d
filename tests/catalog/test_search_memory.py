"""What a search index keeps of the queries it has answered (catalog.search, catalog.searchhits):
a ranking it forgets (past RANKED_CACHE_SIZE) is freed by reference counting as soon as no
request reads it, hits, reasons and excerpts included, never left to the cyclic collector
(docs/benchmarks.md, "Every cache full, session 6")."""

import gc
import weakref
from collections.abc import Iterator

import pytest

from catalog import search as search_module
from catalog.search import SearchIndex
from tests.catalog.search_support import skill


@pytest.fixture
def no_cyclic_collector() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _index() -> SearchIndex:
    return SearchIndex(
        skill(
            f"skill-{number:02d}",
            description=f"Deploy and roll back release {number}.",
            body=f"How to deploy a rollback, number {number}, with migrations.\n",
            tags=("deploy",),
            keywords=("rollback",),
        )
        for number in range(30)
    )


def _read_first_pages(index: SearchIndex, query: str) -> "weakref.ref[object]":
    """A weak reference to the ranking of `query`, whose first page (every hit's reasons and
    excerpt, as a skills_search page reads them) was read."""
    results = index.search(query)
    for hit in results[:20]:
        hit.match_reasons()
        hit.excerpt(80)
    return weakref.ref(results)


def test_a_forgotten_ranking_is_freed_without_the_cyclic_collector(
    monkeypatch: pytest.MonkeyPatch, no_cyclic_collector: None
) -> None:
    monkeypatch.setattr(search_module, "RANKED_CACHE_SIZE", 2)
    index = _index()
    first = _read_first_pages(index, "deploy")
    assert first() is not None  # remembered
    _read_first_pages(index, "rollback")
    assert first() is not None  # still one of the two remembered
    _read_first_pages(index, "migrations")
    assert first() is None  # forgotten, and freed at once


def test_a_remembered_ranking_keeps_its_hits_reasons_and_excerpts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "RANKED_CACHE_SIZE", 2)
    index = _index()
    results = index.search("deploy rollback")
    hit = results[0]
    assert hit.match_reasons() == hit.match_reasons() and results[0] is hit
    assert index.search("deploy rollback") is results

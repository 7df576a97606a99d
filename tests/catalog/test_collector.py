"""catalog.collector: what a build leaves alive frozen out of full collections, in the serving
process only, with nothing kept past the next build (docs/benchmarks.md, "The collector under
gunicorn, session 6")."""

import gc
import weakref
from collections.abc import Iterator

import pytest

from catalog import collector, index
from catalog.entries import SnapshotIndex
from catalog.publishing import publish
from catalog.search import SearchIndex
from tests.catalog.publish_support import bump, two_skills
from tests.support.repos import SkillRepo
from tests.support.serving_process import serving_process_json


class Node:
    """A reference cycle of one object, whose end a weakref's callback reports."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(collector, "_installed", True)
    yield
    gc.unfreeze()  # the rest of the test process as it was: nothing frozen


def frozen(thing: object) -> bool:
    """Whether `thing` is out of the collector's generations (gc.get_objects lists them only)."""
    return gc.is_tracked(thing) and not any(one is thing for one in gc.get_objects())


def test_settle_does_nothing_until_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collector, "_installed", False)
    kept = [object()]

    assert collector.settle() == 0
    assert gc.get_freeze_count() == 0
    assert not frozen(kept)


def test_settle_freezes_what_is_alive(installed: None) -> None:
    kept = [object()]

    assert collector.settle() > 0
    assert gc.get_freeze_count() > 0
    assert frozen(kept)


def test_frozen_cyclic_garbage_is_collected_by_the_next_settle(installed: None) -> None:
    """The bound on what a freeze keeps: garbage in a cycle is never walked while frozen, so
    each settle unfreezes and collects first; without that, one leak per publish."""
    ended: list[bool] = []
    node = Node()
    watch = weakref.ref(node, lambda _: ended.append(True))
    collector.settle()
    del node
    gc.collect()
    assert not ended  # frozen: no collection sees it

    collector.settle()

    assert ended
    assert watch() is None


@pytest.mark.django_db
def test_republished_indexes_are_freed_while_frozen(skill_repo: SkillRepo, installed: None) -> None:
    """Each publish's indexes are built and frozen. Once the caches drop an old snapshot index,
    reference counting frees it (no cycle keeps it), before any collection; a search index is
    in a cycle with its remembered rankings (catalog.searchhits), so one dropped after the last
    settle waits for the next: never more than that one."""
    index.clear_index_cache()
    try:
        publish(skill_repo.root, two_skills(skill_repo))
        shas = []
        for version in range(1, 8):
            publish(skill_repo.root, bump(skill_repo, "beta", f"1.{version}.0", f"Beta {version}.\n"))
            view = index.active_view(False)
            assert view is not None
            assert view.search_index().search("beta")[0].skill.id == "beta"  # a ranking kept, a hit
            shas.append(view.ref.sha)
        del view
        gc.unfreeze()  # gc.get_objects lists the frozen too from here; nothing was collected
        alive = {one.ref.sha for one in gc.get_objects() if isinstance(one, SnapshotIndex)}
        searched = sum(isinstance(one, SearchIndex) for one in gc.get_objects())
    finally:
        index.clear_index_cache()

    assert shas[-1] in alive
    assert alive <= set(shas[-index.INDEX_CACHE_SIZE :])
    assert searched <= index.SEARCH_CACHE_SIZE + 1


def test_the_serving_process_installs_it_and_django_alone_does_not() -> None:
    script = """
import json, django
django.setup()
from catalog import collector
alone = collector._installed
import skillsite.wsgi
print(json.dumps([alone, collector._installed]))
"""
    assert serving_process_json(script, "locmem://") == [False, True]

"""What a ranking depends on: the visible skills and the query, nothing else (no hidden
skill's statistics, no process, hash seed or restart)."""

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from catalog.config import config_from_dict
from catalog.index import SkillEntry, SnapshotIndex, SnapshotRef
from catalog.search import SearchIndex
from catalog.textwords import stem
from tests.catalog.search_support import skill
from tests.support.repos import DEFAULT_CONFIG

PROJECT = Path(__file__).resolve().parents[2]
REF = SnapshotRef(sha="a" * 40, published_at=datetime(2026, 1, 1, tzinfo=UTC))
QUERIES = ["rotate deploy", "keys", "deploy", "rotate", "services keys rotate"]

PUBLIC = [
    skill("alpha", body="Rotate the keys."),
    skill("bravo", body="Deploy the services."),
    skill("charlie", body="Deploy the app."),
    skill("delta", body="Deploy the docs."),
    skill("echo", body="Deploy the site."),
]
# Hidden skills that would make "rotate" common, were their statistics counted.
HIDDEN = [skill(f"zdr-{n}", body="Rotate, rotate, rotate the vault.", required_zdr=True) for n in range(6)]


def snapshot(skills: list[SkillEntry]) -> SnapshotIndex:
    return SnapshotIndex(REF, config_from_dict(DEFAULT_CONFIG), skills)


def answers(index: SearchIndex) -> dict[str, list]:
    return {
        query: [(hit.skill.id, hit.match_reasons(), hit.excerpt(40)) for hit in index.search(query)]
        for query in QUERIES
    }


def test_a_hidden_skill_moves_no_ranking_and_no_score_of_an_uncleared_caller() -> None:
    without = SearchIndex(snapshot(PUBLIC).visible(zdr_cleared=False).skills)
    with_hidden = SearchIndex(snapshot(PUBLIC + HIDDEN).visible(zdr_cleared=False).skills)
    assert answers(with_hidden) == answers(without)
    for word in ("rotate", "deploy", "keys", "services"):
        assert with_hidden.text.scores(stem(word)) == without.text.scores(stem(word))
    assert [hit.skill.id for hit in without.search("rotate deploy")][:2] == ["alpha", "bravo"]


def test_the_hidden_skills_do_shape_the_cleared_view_so_the_test_above_can_fail() -> None:
    cleared = SearchIndex(snapshot(PUBLIC + HIDDEN).visible(zdr_cleared=True).skills)
    public = [hit.skill.id for hit in cleared.search("rotate deploy") if not hit.skill.required_zdr]
    assert public[:2] == ["bravo", "charlie"]  # "rotate" is common there, so "deploy" outweighs it
    uncleared = SearchIndex(snapshot(PUBLIC + HIDDEN).visible(zdr_cleared=False).skills)
    assert cleared.text.scores(stem("rotate")) != uncleared.text.scores(stem("rotate"))


# Ranks the evaluation corpus for a few queries and prints ids, reasons and excerpts as JSON.
_RANK_IN_A_NEW_PROCESS = """
import json, sys
import django
django.setup()
from bench.search.run import load_corpus
from catalog.search import SearchIndex
index = SearchIndex(load_corpus())
out = {}
for query in json.loads(sys.argv[1]):
    out[query] = [[h.skill.id, h.match_reasons(), h.excerpt(80)] for h in index.search(query)[:15]]
print(json.dumps(out))
"""
CORPUS_QUERIES = [
    "fill in a pdf form",
    "test a web app in the browser",
    "deploy rollback kubernetes",
    "code-review checklist",
    "the",
    "make slides for my talk",
]


def rank_in_a_new_process(hash_seed: str) -> dict:
    environment = {
        **os.environ,
        "PYTHONHASHSEED": hash_seed,
        "PYTHONPATH": str(PROJECT),
        "DJANGO_SETTINGS_MODULE": "tests.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", _RANK_IN_A_NEW_PROCESS, json.dumps(CORPUS_QUERIES)],
        cwd=PROJECT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)


def test_rankings_are_the_same_in_every_process_whatever_the_hash_seed() -> None:
    first = rank_in_a_new_process("1")
    assert rank_in_a_new_process("2") == first
    assert rank_in_a_new_process("random") == first
    assert all(first[query] for query in CORPUS_QUERIES if query != "the")
    assert first["the"] == []
    assert first["fill in a pdf form"][0][0] == "pdf-form-filling"

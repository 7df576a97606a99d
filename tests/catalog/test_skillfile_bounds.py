"""One SKILL.md's lists within their bounds: items, characters, duplicates and aliases
(docs/reference.md#skill-format, docs/reference.md#limits)."""

import time
import tracemalloc

import pytest

from catalog.fields import MAX_ITEM_CHARS, MAX_LIST_ITEMS
from catalog.skillfile import parse_skill_file
from tests.catalog.skillfile_support import only_problem, parse, parse_front, problem_codes
from tests.support.skillmd import skill_md

# --- list bounds (docs/reference.md#limits) ---------------------------------------------


LIST_KEYS = {
    "tags": lambda n: f"tag-{n}",
    "keywords": lambda n: f"keyword {n}",
    "requires": lambda n: f"need {n}",
}


@pytest.mark.parametrize("key", LIST_KEYS)
def test_a_list_of_64_items_passes_and_65_is_too_many_items(key: str) -> None:
    item = LIST_KEYS[key]
    assert parse(**{key: [item(n) for n in range(MAX_LIST_ITEMS)]}).problems == ()
    parsed = parse(**{key: [item(n) for n in range(MAX_LIST_ITEMS + 1)]})
    assert problem_codes(parsed) == ["too_many_items"]
    assert only_problem(parsed) == f"{key} holds 65 items, more than 64"


@pytest.mark.parametrize("key", ["keywords", "requires"])
def test_an_item_of_200_characters_passes_and_201_is_too_long(key: str) -> None:
    assert parse(**{key: ["k" * MAX_ITEM_CHARS]}).problems == ()
    parsed = parse(**{key: ["k" * (MAX_ITEM_CHARS + 1)]})
    assert problem_codes(parsed) == ["item_too_long"]
    assert "has 201 characters, more than 200" in only_problem(parsed)


@pytest.mark.parametrize("key", ["keywords", "requires"])
def test_a_repeated_keyword_or_requirement_is_a_duplicate_item(key: str) -> None:
    parsed = parse(**{key: ["csv", "pdf", "csv"]})
    assert problem_codes(parsed) == ["duplicate_item"]
    assert only_problem(parsed) == f"{key} lists 'csv' more than once"


def test_files_may_list_max_files_paths_and_one_more_is_too_many_files() -> None:
    listed = [f"references/{n}.md" for n in range(4)]
    text = skill_md("demo", files=listed).encode()
    assert parse_skill_file(text, max_files=4).problems == ()
    parsed = parse_skill_file(text, max_files=3)
    assert problem_codes(parsed) == ["too_many_files"]
    assert only_problem(parsed) == "files holds 4 items, more than max_files_per_skill (3)"


def test_a_files_path_of_201_characters_is_too_long() -> None:
    assert parse(files=["references/" + "a" * (MAX_ITEM_CHARS - 14) + ".md"]).problems == ()
    parsed = parse(files=["references/" + "a" * (MAX_ITEM_CHARS - 13) + ".md"])
    assert problem_codes(parsed) == ["item_too_long"]


def test_aliases_count_as_the_items_they_stand_for() -> None:
    # 64 uses of one anchored keyword: 64 items, and duplicates of each other.
    uses = ", ".join(["*k"] * (MAX_LIST_ITEMS - 1))
    parsed = parse_front(f'keywords: [&k "csv", {uses}]\n')
    assert problem_codes(parsed) == ["duplicate_item"]
    uses = ", ".join(["*k"] * MAX_LIST_ITEMS)
    parsed = parse_front(f'keywords: [&k "csv", {uses}]\n')
    assert problem_codes(parsed) == ["too_many_items"]
    assert only_problem(parsed) == "keywords holds 65 items, more than 64"


def test_the_reported_keyword_bomb_is_refused_by_its_count_fast() -> None:
    """Finding 2 of issue 15: 20,000 characters anchored once, then 11,000 aliases to it."""
    uses = ", ".join(["*s"] * 11_000)
    front = f'keywords: [&s "{"x" * 20_000}", {uses}]\n'
    started = time.perf_counter()
    tracemalloc.start()
    try:
        parsed = parse_front(front)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 5
    assert peak < 20 * 1024 * 1024
    assert parsed.metadata is None
    messages = {problem.code: problem.message for problem in parsed.problems}
    assert messages["too_many_items"] == "keywords holds 11001 items, more than 64"


def test_a_bomb_of_short_keywords_within_the_expansion_budget_is_refused() -> None:
    # 11,001 keywords of five characters expand to less than four times what is written,
    # so only the list bound can refuse them.
    uses = ", ".join(["*s"] * 11_000)
    parsed = parse_front(f'keywords: [&s "xxxxx", {uses}]\n')
    assert problem_codes(parsed) == ["too_many_items"]

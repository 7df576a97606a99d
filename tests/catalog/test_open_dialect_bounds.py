"""The open dialect's bounds on what is stored and served as written: allowed-tools, metadata,
the frontmatter's cost (docs/reference.md#limits)."""

import pytest

from catalog.fields import (
    MAX_FRONTMATTER_COST,
    MAX_ITEM_CHARS,
    MAX_LIST_ITEMS,
    MAX_METADATA_ENTRIES,
    MAX_METADATA_VALUE_CHARS,
)
from tests.catalog.open_dialect_support import errors, parse, warnings, with_keys

# --- bounds on what is stored and served as written (docs/reference.md#limits) ----------------


def tools(count: int, width: int = 5) -> list[str]:
    return [f"T{n:0{width - 1}d}" for n in range(count)]


@pytest.mark.parametrize("as_string", [False, True], ids=["list", "string"])
def test_allowed_tools_hold_at_most_64_tools(as_string: bool) -> None:
    def given(names: list[str]) -> str | list[str]:
        return " ".join(names) if as_string else names

    assert with_keys(**{"allowed-tools": given(tools(MAX_LIST_ITEMS))}).problems == ()
    parsed = with_keys(**{"allowed-tools": given(tools(MAX_LIST_ITEMS + 1))})
    assert errors(parsed) == ["too_many_items"]
    assert parsed.problems[0].message == "allowed-tools holds 65 items, more than 64"


@pytest.mark.parametrize("as_string", [False, True], ids=["list", "string"])
def test_an_allowed_tool_of_201_characters_is_too_long(as_string: bool) -> None:
    def given(name: str) -> str | list[str]:
        return f"Read {name}" if as_string else ["Read", name]

    assert with_keys(**{"allowed-tools": given("B" * MAX_ITEM_CHARS)}).problems == ()
    assert errors(with_keys(**{"allowed-tools": given("B" * (MAX_ITEM_CHARS + 1))})) == ["item_too_long"]


def test_a_repeated_allowed_tool_is_a_duplicate_item() -> None:
    assert errors(with_keys(**{"allowed-tools": ["Read", "Read"]})) == ["duplicate_item"]
    assert errors(with_keys(**{"allowed-tools": "Read Bash Read"})) == ["duplicate_item"]


def test_metadata_holds_at_most_64_entries() -> None:
    entries = {f"k{n}": "v" for n in range(MAX_METADATA_ENTRIES)}
    assert with_keys(metadata=entries).problems == ()
    parsed = with_keys(metadata={**entries, "one-more": "v"})
    assert errors(parsed) == ["too_many_items"]
    assert parsed.problems[0].message == "metadata holds 65 entries, more than 64"


def test_a_metadata_value_of_1025_characters_or_a_key_of_201_is_too_long() -> None:
    assert with_keys(metadata={"author": "a" * MAX_METADATA_VALUE_CHARS}).problems == ()
    parsed = with_keys(metadata={"author": "a" * (MAX_METADATA_VALUE_CHARS + 1)})
    assert errors(parsed) == ["item_too_long"]
    assert "1025 characters, more than 1024" in parsed.problems[0].message
    assert with_keys(metadata={"k" * MAX_ITEM_CHARS: "v"}).problems == ()
    assert errors(with_keys(metadata={"k" * (MAX_ITEM_CHARS + 1): "v"})) == ["item_too_long"]


def test_a_list_inside_metadata_is_bounded_like_every_list() -> None:
    at_edge = with_keys(metadata={"authors": [f"a{n}" for n in range(MAX_LIST_ITEMS)]})
    assert errors(at_edge) == [] and warnings(at_edge) == ["metadata_not_string"]
    parsed = with_keys(metadata={"authors": [f"a{n}" for n in range(MAX_LIST_ITEMS + 1)]})
    assert errors(parsed) == ["too_many_items"]
    assert errors(with_keys(metadata={"authors": ["a" * (MAX_ITEM_CHARS + 1)]})) == ["item_too_long"]


def test_an_alias_bomb_in_allowed_tools_is_refused_by_its_count() -> None:
    uses = ", ".join(["*t"] * 11_000)
    parsed = parse(f'name: demo\ndescription: D.\nallowed-tools: [&t "{"B" * 20_000}", {uses}]\n')
    assert "too_many_items" in errors(parsed) and parsed.metadata is None


def test_the_frontmatter_as_written_never_costs_more_than_its_ceiling() -> None:
    # A vendor key of 30 aliases to 30,000 characters beside 300,000 written out: about
    # 1.2 million once expanded, under four times what is written but over the ceiling.
    uses = ", ".join(["*v"] * 30)
    vendor = f'x-vendor-notes: [&v "{"v" * 30_000}", {uses}]\nx-vendor-filler: "{"f" * 300_000}"\n'
    front = f"name: demo\ndescription: D.\n{vendor}"
    expanded = 31 * 30_001 + 300_001
    assert MAX_FRONTMATTER_COST < expanded < 4 * len(front)
    assert errors(parse(front)) == ["frontmatter_too_large"]

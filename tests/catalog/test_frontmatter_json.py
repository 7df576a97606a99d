"""catalog.frontmatter_json: the frontmatter as written, as JSON, and the bound on YAML aliases."""

import datetime
import json

import pytest

from catalog import frontmatter_json
from catalog.frontmatter_json import FrontmatterTooLarge, KeyClash, RecursiveFrontmatter, render
from catalog.strict_yaml import load_yaml


def test_plain_values_are_served_unchanged_in_the_order_written() -> None:
    data = load_yaml("b: 1\na: [x, {y: true}]\nc: null\nd: 1.5\n")
    assert json.dumps(render(data)) == '{"b": 1, "a": ["x", {"y": true}], "c": null, "d": 1.5}'


@pytest.mark.parametrize(
    ("yaml_value", "served"),
    [
        ("2026-01-15", "2026-01-15"),
        ("2026-01-15 10:30:00", "2026-01-15T10:30:00"),
        ("2001-12-14t21:59:43.10-05:00", "2001-12-14T21:59:43.100000-05:00"),
        (".nan", ".nan"),
        (".inf", ".inf"),
        ("-.inf", "-.inf"),
        ("9007199254740992", "9007199254740992"),
        ("9007199254740991", 9007199254740991),
        ("!!binary aGk=", "aGk="),
        ("!!set {b, a}", ["a", "b"]),
        ("!!omap [x: 1, y: 2]", [["x", 1], ["y", 2]]),
    ],
)
def test_what_json_cannot_say_is_rendered(yaml_value: str, served: object) -> None:
    assert render(load_yaml(f"k: {yaml_value}\n")) == {"k": served}


def test_keys_that_are_no_strings_become_their_text() -> None:
    data = load_yaml("2: two\nfalse: no\nnull: nothing\n2026-01-01: day\n1.5: half\n")
    assert render(data) == {"2": "two", "false": "no", "null": "nothing", "2026-01-01": "day", "1.5": "half"}


def test_two_keys_that_read_alike_are_refused() -> None:
    with pytest.raises(KeyClash):
        render({1: "a", "1": "b"})


def test_the_rendering_is_json() -> None:
    value = render({"when": datetime.date(2026, 1, 1), "n": float("nan")})
    assert json.loads(frontmatter_json.encode(value)) == {"when": "2026-01-01", "n": ".nan"}


def test_aliases_within_bounds_are_expanded() -> None:
    text = "base: &b [a, b]\nagain: *b\n"
    data = load_yaml(text)
    frontmatter_json.check_expansion(data, frontmatter_json.expansion_budget(len(text)))
    assert render(data) == {"base": ["a", "b"], "again": ["a", "b"]}


def test_an_alias_bomb_is_measured_without_being_expanded() -> None:
    lines = ["l0: &l0 [" + ", ".join(["lol"] * 9) + "]"]
    lines += [f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]" for n in range(1, 9)]
    text = "\n".join(lines)
    with pytest.raises(FrontmatterTooLarge):
        frontmatter_json.check_expansion(load_yaml(text), frontmatter_json.expansion_budget(len(text)))


def test_a_long_string_repeated_by_aliases_is_too_large() -> None:
    text = "s: &s " + "x" * 1000 + "\nl: [" + ", ".join(["*s"] * 10) + "]\n"
    with pytest.raises(FrontmatterTooLarge):
        frontmatter_json.check_expansion(load_yaml(text), frontmatter_json.expansion_budget(len(text)))


def test_a_structure_holding_itself_is_refused() -> None:
    with pytest.raises(RecursiveFrontmatter):
        frontmatter_json.check_expansion(load_yaml("a: &a [*a]\n"), 10_000)


@pytest.mark.parametrize(
    "text",
    [
        "a: [~, ~, ~, ~, ~, ~, ~, ~, ~, ~, ~, ~, ~, ~, ~, ~, ~, ~, ~, ~]\n",
        "a: [" + ",".join(["1.e+9"] * 200) + "]\n",
        "- \n" * 300,
        "a: {" + ", ".join(f"k{n}" for n in range(300)) + "}\n",
    ],
)
def test_without_aliases_the_budget_is_never_reached(text: str) -> None:
    frontmatter_json.check_expansion(load_yaml(text), frontmatter_json.expansion_budget(len(text)))

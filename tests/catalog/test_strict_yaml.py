"""catalog.strict_yaml: YAML 1.2 booleans, no duplicate or merge keys, bounded value texts."""

import pytest
import yaml

from catalog.strict_yaml import load_yaml, shown


def test_only_true_and_false_are_booleans() -> None:
    assert load_yaml("a: true\nb: false\nc: yes\nd: on\ne: y\n") == {
        "a": True,
        "b": False,
        "c": "yes",
        "d": "on",
        "e": "y",
    }


def test_an_explicit_bool_tag_on_anything_else_is_an_error() -> None:
    with pytest.raises(yaml.MarkedYAMLError, match="not a boolean"):
        load_yaml("a: !!bool yes\n")


def test_a_duplicate_key_is_an_error() -> None:
    with pytest.raises(yaml.MarkedYAMLError, match="duplicate key 'a'"):
        load_yaml("a: 1\na: 2\n")


def test_a_merge_key_is_an_error() -> None:
    with pytest.raises(yaml.MarkedYAMLError, match="merge keys"):
        load_yaml("base: &b {x: 1}\nother:\n  <<: *b\n")


def test_no_python_object_is_ever_built() -> None:
    with pytest.raises(yaml.YAMLError):
        load_yaml("a: !!python/object/apply:os.system ['true']\n")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ([1, 2], "[...]"),
        ({"a": 1}, "{...}"),
        (2**100, "an integer of 101 bits"),
        ("x" * 200, "'" + "x" * 76 + "..."),
        (True, "True"),
    ],
)
def test_a_value_is_shown_bounded(value: object, text: str) -> None:
    assert shown(value) == text
    assert len(shown(value)) <= 80

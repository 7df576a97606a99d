"""mcpapi.params names the argument and the rule it breaks, in full, the label written only
when a value fails (docs/benchmarks.md "The floor of a cold search, session 6")."""

from typing import Any

import pytest

from mcpapi.params import ArgumentError, validate_object

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "maxLength": 3},
        "limit": {"type": "integer", "minimum": 1, "maximum": 5},
        "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
        "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
    },
    "required": ["query"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"query": 1}, "tool: 'query' must be a string."),
        ({"query": "abcd"}, "tool: 'query' must be at most 3 characters long."),
        ({"query": "a", "limit": 0}, "tool: 'limit' must be at least 1."),
        ({"query": "a", "limit": 6.0}, "tool: 'limit' must be at most 5."),
        ({"query": "a", "tags": ["x", 2]}, "tool: 'tags'[1] must be a string."),
        ({"query": "a", "tags": ["x", "y", "z"]}, "tool: 'tags' must hold at most 2 items."),
        ({"query": "a", "grid": [[1], [2, "3"]]}, "tool: 'grid'[1][1] must be an integer."),
        (
            {"query": "a", "it's": 1},
            "tool: unknown argument \"it's\" (the arguments are 'query', 'limit', 'tags', 'grid').",
        ),
        ({"limit": 2}, "tool: 'query' is required."),
    ],
)
def test_a_broken_rule_is_named_in_full(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ArgumentError) as raised:
        validate_object(arguments, SCHEMA, "tool")
    assert raised.value.message == message


def test_what_passes_is_kept_and_integers_normalised() -> None:
    checked = validate_object({"query": "ab", "limit": 2.0, "tags": None, "grid": [[1]]}, SCHEMA, "tool")
    assert checked == {"query": "ab", "limit": 2, "grid": [[1]]}
    assert type(checked["limit"]) is int

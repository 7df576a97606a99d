"""The YAML loader for SKILL.md frontmatter: PyYAML's safe loader (no object is ever
constructed), made strict. Only `true` and `false` are booleans, and a duplicate or merge
key is an error, so a near-miss can never silently change what a skill says."""

import re
from typing import TYPE_CHECKING, Any

import yaml

_BOOL_TAG = "tag:yaml.org,2002:bool"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_SHOWN_CHARS = 80

# The C loader when PyYAML was built with libyaml (same behaviour, faster). The checker is
# shown the pure-Python one: the stubs give the two no common loader type to name.
if TYPE_CHECKING:
    BASE_LOADER = yaml.SafeLoader
else:
    BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(BASE_LOADER):
    """SafeLoader with YAML 1.2 booleans and no duplicate or merge keys.

    PyYAML follows YAML 1.1, where `yes`, `on`, `y`... are booleans. Here only `true`
    and `false` are: anything else stays a string, which the type rules then reject
    for required_zdr and accept for text fields (a name of "Yes" is just text).
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:
                raise yaml.constructor.ConstructorError(
                    None, None, "merge keys (<<) are not supported", key_node.start_mark
                )
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key must be a plain value", key_node.start_mark
                ) from None
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {shown(key)}", key_node.start_mark
                )
        return super().construct_mapping(node, deep=deep)

    def construct_strict_bool(self, node: yaml.ScalarNode) -> bool:
        # Reached for plain `true`/`false` and for an explicit `!!bool x` tag.
        value = self.construct_scalar(node)
        if value not in ("true", "false"):
            raise yaml.constructor.ConstructorError(
                None, None, f"{value!r} is not a boolean (use true or false)", node.start_mark
            )
        return value == "true"


_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _BOOL_TAG]
    for first, resolvers in BASE_LOADER.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(_BOOL_TAG, re.compile(r"^(?:true|false)$"), list("tf"))
_StrictLoader.add_constructor(_BOOL_TAG, _StrictLoader.construct_strict_bool)


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass


def shown(value: Any) -> str:
    """A YAML value for a message, bounded whatever the frontmatter holds: a list or a
    mapping is never expanded (the repr of an alias bomb, `&a [*a, *a, ...]` nested a
    few times, would never end) and a huge integer is never turned into digits."""
    if isinstance(value, list | tuple):
        return "[...]"
    if isinstance(value, dict | set | frozenset):
        return "{...}"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."

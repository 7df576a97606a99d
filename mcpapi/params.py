"""Check arguments against the JSON Schemas we publish, with our own messages.

Only the keywords our schemas use are understood (type, properties, required,
additionalProperties, items, minimum, maximum, maxLength, maxItems): the schema a client
reads in tools/list is the very object the server checks with, so the two cannot drift.
A failure raises ArgumentError naming the argument and the rule it breaks, never library
text; each caller answers it in its own terms (a method's params: -32602; a tool's
arguments: the tool error INVALID_ARGUMENT, docs/reference.md#tools).
"""

from typing import Any

_TYPE_NAMES = {
    "object": "an object",
    "string": "a string",
    "integer": "an integer",
    "boolean": "a boolean",
    "array": "an array",
}


class ArgumentError(ValueError):
    """An argument breaks its schema; the message says which one and how."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def validate_object(value: Any, schema: dict[str, Any], where: str) -> dict[str, Any]:
    """The checked object, integers normalised (2.0 -> 2). A property given as null is
    treated as omitted when it is optional: clients often send null for "not set"."""
    if not isinstance(value, dict):
        raise ArgumentError(f"{where}: arguments must be an object.")
    properties: dict[str, Any] = schema.get("properties", {})
    required = schema.get("required", ())
    if schema.get("additionalProperties", True) is False:
        for name in value:
            if name not in properties:
                known = ", ".join(repr(known) for known in properties) or "none"
                raise ArgumentError(f"{where}: unknown argument {name!r} (the arguments are {known}).")
    checked: dict[str, Any] = {}
    for name, item in value.items():
        rule = properties.get(name)
        if rule is None:
            checked[name] = item
        elif item is None and name not in required:
            continue
        else:
            checked[name] = _check(item, rule, (where, name))
    for name in required:
        if name not in checked:
            raise ArgumentError(f"{where}: {name!r} is required.")
    return checked


# Where a value stands: the method or tool, the argument, and the indexes of the items it is in.
# Its label (`name: 'tags'[1]`) is written only for a message: most arguments pass, and a
# label per argument was a third of checking them (docs/benchmarks.md "The floor of a cold
# search, session 6").
Place = tuple[Any, ...]


def _label(place: Place) -> str:
    where, name, *indexes = place
    return f"{where}: {name!r}" + "".join(f"[{index}]" for index in indexes)


def _check(value: Any, schema: dict[str, Any], place: Place) -> Any:
    expected = schema.get("type")
    if expected == "string":
        if not isinstance(value, str):
            raise _wrong_type(place, expected)
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise ArgumentError(f"{_label(place)} must be at most {schema['maxLength']} characters long.")
        return value
    if expected == "integer":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _wrong_type(place, expected)
        if isinstance(value, float):
            if not value.is_integer():
                raise _wrong_type(place, expected)
            value = int(value)
        if "minimum" in schema and value < schema["minimum"]:
            raise ArgumentError(f"{_label(place)} must be at least {schema['minimum']}.")
        if "maximum" in schema and value > schema["maximum"]:
            raise ArgumentError(f"{_label(place)} must be at most {schema['maximum']}.")
        return value
    if expected == "boolean":
        if not isinstance(value, bool):
            raise _wrong_type(place, expected)
        return value
    if expected == "array":
        if not isinstance(value, list):
            raise _wrong_type(place, expected)
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise ArgumentError(f"{_label(place)} must hold at most {schema['maxItems']} items.")
        items = schema.get("items")
        if items is None:
            return value
        return [_check(item, items, (*place, index)) for index, item in enumerate(value)]
    if expected == "object":
        if not isinstance(value, dict):
            raise _wrong_type(place, expected)
        return value
    return value


def _wrong_type(place: Place, expected: str) -> ArgumentError:
    return ArgumentError(f"{_label(place)} must be {_TYPE_NAMES[expected]}.")

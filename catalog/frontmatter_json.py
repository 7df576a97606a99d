"""The frontmatter as written, as JSON (docs/reference.md#skill-format): what skills_get
serves as `frontmatter`, in both dialects, every key in the order written.

YAML holds more than JSON can say, so some values are rendered:
  - a date or a timestamp (`date: 2026-01-01`) is its ISO 8601 string;
  - !!binary bytes are their base64 text; a !!set is a list of its members, an !!omap or
    !!pairs a list of [key, value] pairs;
  - an integer beyond JSON's exact range (|n| >= 2^53) is its decimal string, .nan and
    .inf are the strings ".nan", ".inf", "-.inf";
  - a mapping key that is not a string is its rendering as a string (1 -> "1",
    true -> "true", null -> "null"); two keys that render alike are a problem.
YAML aliases count as what they expand to: the expansion is measured before anything is
built, and a frontmatter that would expand past four times its written size (plus 1 KiB),
or past MAX_FRONTMATTER_COST whatever its size, or that refers to itself, is refused, so
no SKILL.md can expand into megabytes of metadata.
"""

import base64
import datetime
import json
import math
from collections.abc import Mapping
from typing import Any

from catalog.fields import MAX_FRONTMATTER_COST
from catalog.strict_yaml import shown

_EXACT_INTEGER = 2**53
_SLACK = 1024


class FrontmatterTooLarge(ValueError):
    pass


class RecursiveFrontmatter(ValueError):
    pass


class KeyClash(ValueError):
    pass


class Unservable(ValueError):
    """A value no JSON reader could take in (an integer of thousands of digits)."""


# Python refuses to write integers of more than 4300 digits as text; 13,000 bits stay under.
_MAX_INTEGER_BITS = 13_000


def expansion_budget(written_chars: int) -> int:
    """How large a frontmatter of `written_chars` characters may be once expanded. Never
    reached without aliases below MAX_FRONTMATTER_COST: no value costs more than 2.5 times
    what it takes to write (`~,` is two characters and costs five, as `null`)."""
    return min(4 * written_chars + _SLACK, MAX_FRONTMATTER_COST)


def check_expansion(data: Any, budget: int) -> None:
    """Raise FrontmatterTooLarge or RecursiveFrontmatter. Each value costs 1 plus the
    characters it is served as; a shared node (an alias) is measured once and counted
    every time it is used, so nothing is ever expanded to be measured."""
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()

    def size(value: Any) -> int:
        key = id(value)
        known = sizes.get(key)
        if known is not None:
            return known
        if isinstance(value, str):
            total = 1 + len(value)
        elif isinstance(value, bytes):
            total = 1 + 4 * ((len(value) + 2) // 3)
        elif not isinstance(value, dict | list | tuple | set | frozenset):
            total = 1 + len(_scalar_text(value))
        else:
            if key in in_progress:
                raise RecursiveFrontmatter
            in_progress.add(key)
            items = value.items() if isinstance(value, dict) else ((item, None) for item in value)
            total = 1
            for first, second in items:
                total += size(first) + (0 if second is None else size(second))
                if total > budget:
                    raise FrontmatterTooLarge
            in_progress.discard(key)
        sizes[key] = total
        return total

    if size(data) > budget:
        raise FrontmatterTooLarge


def render(value: Any) -> Any:
    """`value` (already bounded by check_expansion) as plain JSON data."""
    if isinstance(value, dict):
        rendered: dict[str, Any] = {}
        for key, item in value.items():
            name = key if isinstance(key, str) else _scalar_text(key)
            if name in rendered:
                raise KeyClash(f"two keys read as {shown(name)}")
            rendered[name] = render(item)
        return rendered
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [render(item) for item in items]
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value if -_EXACT_INTEGER < value < _EXACT_INTEGER else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else _scalar_text(value)
    return _scalar_text(value)


def _scalar_text(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_INTEGER_BITS:
        raise Unservable(f"an integer of {value.bit_length()} bits")
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value):
            return repr(value)
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if isinstance(value, datetime.date):  # a datetime is a date too
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def encode(frontmatter: Mapping[str, Any]) -> str:
    """The rendered frontmatter as compact JSON text, keys in the order written."""
    return json.dumps(frontmatter, ensure_ascii=False, separators=(",", ":"))

"""SKILL.md text, written one way for the tests and the benchmark's corpus.

    render_skill_md(meta, body) -> str
        `---`, one line per key of `meta` in its order, `---`, then the body. Strings are
        JSON strings (a JSON string is a YAML double-quoted scalar, so no value is ever
        re-typed by YAML: "1.0" stays a string, "yes" is not a boolean); top-level lists
        are block lists, anything nested is in flow style.
    skill_md(skill_id, body, **fields) -> str
        A registry-dialect SKILL.md: defaults for every required key, overridden or
        extended by `fields` (a field given as None is left out).

The same meta always gives the same bytes, so the benchmark's seeded corpus stays
byte-identical from run to run.
"""

import json
import re
from collections.abc import Mapping
from typing import Any

# What YAML will not carry raw inside a double-quoted scalar: characters outside its
# printable set, and the Unicode line breaks it would fold into a space. Written as \\uXXXX.
_NOT_RAW = re.compile("[^\t\n\r\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def quote(text: str) -> str:
    return _NOT_RAW.sub(lambda match: f"\\u{ord(match.group()):04x}", json.dumps(text, ensure_ascii=False))


def _flow(value: Any) -> str:
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{quote(str(key))}: {_flow(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return json.dumps(value)  # bool, int, float, None: JSON's spelling is YAML's


def _line(key: str, value: Any) -> str:
    name = key if _PLAIN_KEY.fullmatch(key) else quote(key)
    if isinstance(value, list | tuple) and value:
        return f"{name}:\n" + "".join(f"  - {_flow(item)}\n" for item in value)
    return f"{name}: {_flow(value)}\n"


def render_skill_md(meta: Mapping[str, Any], body: str) -> str:
    return "---\n" + "".join(_line(key, value) for key, value in meta.items()) + "---\n" + body


def skill_md(skill_id: str, body: str = "Do the thing, step by step.\n", **fields: Any) -> str:
    meta: dict[str, Any] = {
        "schema_version": 1,
        "id": skill_id,
        "name": skill_id,
        "description": f"How to {skill_id.replace('-', ' ')}.",
        "version": "1.0.0",
    }
    meta.update(fields)
    return render_skill_md({key: value for key, value in meta.items() if value is not None}, body)

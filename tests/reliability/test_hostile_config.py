"""Random registry.config.json never crashes validation (docs/reference.md#registryconfigjson):
whatever bytes or JSON a commit holds there (huge and negative integers, thousands of digits,
floats, deep nesting, duplicate and unknown keys, huge arrays, other top-level types),
parse_config answers with a RegistryConfig within the ceilings or one bounded ConfigError,
and check_skills with one invalid_config problem in valid JSON: never a traceback.
"""

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from catalog.config import CEILINGS, MAX_CONFIG_BYTES, ConfigError, RegistryConfig, parse_config
from tests.support.hostile import check_skills_json, examples, json_trees

pytestmark = pytest.mark.reliability

FAST = examples(500)
SLOW = examples(40)
MAX_MESSAGE_CHARS = 4000
KEYS = [
    "schema_version",
    "skills_dir",
    "allowed_file_extensions",
    "allowed_script_extensions",
    "limits",
    "pagination",
    "search",
    "file_page_bytes",
    *{key.rpartition(".")[2] for key in CEILINGS},
    "limts",
    "max_skils",
]
INTEGERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, 1, 3, 4, 1000, 1001, 100_000, 100_001, 2**53, 2**63, -(2**63)]),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    INTEGERS,
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from([".md", ".txt", "md", ".", "skills", "a/b", ".."]),
)
JSON_VALUES = json_trees(SCALARS, KEYS, key_chars=10, list_items=5, object_items=6, max_leaves=30)
CONFIGS = st.dictionaries(st.sampled_from(KEYS), JSON_VALUES, max_size=10) | JSON_VALUES


def check_answer(raw: bytes) -> None:
    try:
        config = parse_config(raw)
    except ConfigError as exc:
        message = str(exc)
        assert message.startswith("registry.config.json: ")
        assert len(message) <= MAX_MESSAGE_CHARS, len(message)
        return
    assert isinstance(config, RegistryConfig)
    limits = config.limits
    for key, ceiling in CEILINGS.items():
        section, _, field = key.rpartition(".")
        value = getattr(getattr(config, section) if section else config, field)
        assert 1 <= value <= ceiling, key
    assert limits.max_skills >= 1


@given(data=CONFIGS)
@example(data={"limits": {"max_skills": 10**4000}})
@example(data={"limits": {"max_file_bytes": 10**18}, "file_page_bytes": 10**18})
@example(data={"pagination": {"max_limit": 1}})
@FAST
def test_parse_config_answers_any_json_with_a_config_or_a_clean_error(data: Any) -> None:
    check_answer(json.dumps(data, allow_nan=True).encode())


@given(raw=st.binary(max_size=2000))
@example(raw=b'{"limits": {"max_skills": ' + b"9" * 5000 + b"}}")
@example(raw=b'{"limits": {"max_skills": -' + b"9" * 60000 + b"}}")
@example(raw=b"[" * 60000 + b"]" * 5000)
@example(raw=b'{"a":' * 12000 + b"1" + b"}" * 12000)
@example(raw=b'{"skills_dir": "' + b'\\"[' * 20000 + b'"}')
@example(raw=b'{"skills_dir": "x", "skills_dir": "y", "limits": {"max_skills": 1, "max_skills": 2}}')
@example(raw=b'{"x": 1}' * 8000)
@example(raw=b"\xef\xbb\xbf{}")
@example(raw=b'{"file_page_bytes": 1e999, "search": {"excerpt_chars": NaN}}')
@FAST
def test_parse_config_answers_any_bytes_with_a_config_or_a_clean_error(raw: bytes) -> None:
    check_answer(raw[: MAX_CONFIG_BYTES + 1])


def test_thousands_of_unknown_keys_give_a_bounded_message() -> None:
    raw = json.dumps({f"k{n}": n for n in range(3000)}).encode()
    with pytest.raises(ConfigError) as excinfo:
        parse_config(raw)
    assert len(str(excinfo.value)) <= MAX_MESSAGE_CHARS
    assert str(excinfo.value).endswith("and 2980 more")


@given(data=CONFIGS)
@example(data={"limits": {"max_skills": 10**4000}})
@SLOW
def test_check_skills_answers_any_config_with_valid_json(data: Any) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "registry.config.json").write_text(json.dumps(data, allow_nan=True))
        code, out = check_skills_json(root)
        document = json.loads(out)
        assert code == (0 if document["ok"] else 1)
        config_problems = [p for p in document["problems"] if p["path"] == "registry.config.json"]
        assert len(config_problems) <= 1
        assert all(p["code"] == "invalid_config" for p in config_problems)


def at_ceilings(**over: int) -> bytes:
    """A config with every value at its ceiling, `over` (a key with "." as "__") above it."""
    data: dict[str, Any] = {}
    for key, ceiling in CEILINGS.items():
        section, _, field = key.rpartition(".")
        value = ceiling + over.get(key.replace(".", "__"), 0)
        (data.setdefault(section, {}) if section else data)[field] = value
    return json.dumps(data).encode()


def test_every_value_exactly_at_its_ceiling_is_accepted() -> None:
    config = parse_config(at_ceilings())
    for key, ceiling in CEILINGS.items():
        section, _, field = key.rpartition(".")
        assert getattr(getattr(config, section) if section else config, field) == ceiling, key


@given(key=st.sampled_from(sorted(CEILINGS)), excess=st.one_of(st.just(1), st.integers(1, 10**40)))
@FAST
def test_any_value_over_its_ceiling_is_invalid_config_naming_the_key(key: str, excess: int) -> None:
    with pytest.raises(ConfigError, match=re.escape(key)) as excinfo:
        parse_config(at_ceilings(**{key.replace(".", "__"): excess}))
    assert len(str(excinfo.value)) <= MAX_MESSAGE_CHARS

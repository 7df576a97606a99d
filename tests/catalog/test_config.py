"""registry.config.json parsing: optional, partial, bounded (docs/reference.md#registryconfigjson)."""

import copy
import dataclasses
import json
from typing import Any

import pytest

from catalog.config import (
    CEILINGS,
    DEFAULTS,
    MAX_CONFIG_BYTES,
    MAX_EXTENSIONS,
    MAX_NESTING,
    ConfigError,
    Limits,
    config_from_dict,
    parse_config,
)
from tests.support.project import PROJECT_DIR
from tests.support.repos import DEFAULT_CONFIG

MIB = 1024 * 1024


def raw(config: Any) -> bytes:
    return json.dumps(config).encode("utf-8")


def changed(**top: Any) -> dict[str, Any]:
    config = copy.deepcopy(DEFAULT_CONFIG)
    config.update(top)
    return config


def with_setting(dotted: str, value: Any) -> dict[str, Any]:
    """A partial config naming one setting, e.g. ("limits.max_skills", 3); a default_limit
    comes with the largest max_limit, which it must not exceed."""
    section, _, key = dotted.rpartition(".")
    if not section:
        return {dotted: value}
    if key == "default_limit":
        return {section: {key: value, "max_limit": CEILINGS[f"{section}.max_limit"]}}
    return {section: {key: value}}


def refusal(data: bytes) -> str:
    with pytest.raises(ConfigError) as excinfo:
        parse_config(data)
    return str(excinfo.value)


# --- the defaults --------------------------------------------------------------------------


def test_the_shipped_config_is_the_built_in_defaults_written_out() -> None:
    shipped = json.loads((PROJECT_DIR / "registry.config.json").read_text(encoding="utf-8"))
    assert shipped == DEFAULTS.to_dict(), "registry.config.json and catalog.config.DEFAULTS differ"
    assert parse_config((PROJECT_DIR / "registry.config.json").read_bytes()) == DEFAULTS


def test_the_defaults_hold_one_skill_as_large_as_the_mcp_skills_extension_allows() -> None:
    assert DEFAULTS.limits == Limits(
        max_skills=10000,
        max_files_per_skill=512,
        max_skill_md_bytes=262144,
        max_file_bytes=4194304,
        max_skill_total_bytes=16 * MIB,
    )


def test_the_defaults_are_within_their_ceilings() -> None:
    assert config_from_dict(DEFAULTS.to_dict()) == DEFAULTS


def test_the_ceilings_are_the_documented_ones() -> None:
    assert CEILINGS == {
        "limits.max_skills": 100_000,
        "limits.max_files_per_skill": 4096,
        "limits.max_skill_md_bytes": MIB,
        "limits.max_file_bytes": 16 * MIB,
        "limits.max_skill_total_bytes": 64 * MIB,
        "pagination.default_limit": 1000,
        "pagination.max_limit": 1000,
        "search.default_limit": 1000,
        "search.max_limit": 1000,
        "search.excerpt_chars": 2000,
        "file_page_bytes": MIB,
    }


def test_it_round_trips_through_to_dict() -> None:
    config = parse_config(raw(DEFAULT_CONFIG))
    assert config_from_dict(config.to_dict()) == config


# --- partial files ---------------------------------------------------------------------------


def test_an_empty_object_is_the_defaults() -> None:
    assert parse_config(b"{}") == DEFAULTS


def test_a_file_may_name_only_the_key_it_changes() -> None:
    assert parse_config(b'{"skills_dir": "plugins"}') == dataclasses.replace(DEFAULTS, skills_dir="plugins")


def test_a_section_may_name_only_the_setting_it_changes() -> None:
    config = parse_config(b'{"limits": {"max_skills": 10}}')
    assert config.limits == dataclasses.replace(DEFAULTS.limits, max_skills=10)
    assert config.pagination == DEFAULTS.pagination


@pytest.mark.parametrize("key", list(DEFAULT_CONFIG))
def test_every_top_level_key_may_be_left_out(key: str) -> None:
    config = copy.deepcopy(DEFAULT_CONFIG)
    del config[key]
    assert parse_config(raw(config)) == DEFAULTS


def test_it_lower_cases_extensions() -> None:
    config = parse_config(raw(changed(allowed_file_extensions=[".MD"])))
    assert config.allowed_file_extensions == (".md",)


def test_a_max_limit_below_the_default_page_size_says_the_page_size_is_the_default() -> None:
    message = refusal(b'{"pagination": {"max_limit": 5}}')
    assert "pagination.default_limit (20, the default) must not exceed pagination.max_limit (5)" in message


def test_it_rejects_a_default_limit_above_the_max() -> None:
    message = refusal(raw(changed(pagination={"default_limit": 10, "max_limit": 5})))
    assert "pagination.default_limit (10) must not exceed pagination.max_limit (5)" in message


# --- ceilings and absurd values --------------------------------------------------------------


@pytest.mark.parametrize("dotted", sorted(CEILINGS))
def test_every_setting_is_accepted_at_its_ceiling(dotted: str) -> None:
    config = parse_config(raw(with_setting(dotted, CEILINGS[dotted])))
    section, _, key = dotted.rpartition(".")
    holder = getattr(config, section) if section else config
    assert getattr(holder, key) == CEILINGS[dotted]


@pytest.mark.parametrize("dotted", sorted(CEILINGS))
def test_every_setting_is_refused_one_above_its_ceiling(dotted: str) -> None:
    ceiling = CEILINGS[dotted]
    message = refusal(raw(with_setting(dotted, ceiling + 1)))
    assert f"{dotted} is {ceiling + 1}, above its ceiling of {ceiling}" in message


def test_a_limit_of_a_billion_bytes_is_refused_naming_it() -> None:
    # A commit must never make the service hold or serve unbounded data.
    message = refusal(b'{"limits": {"max_file_bytes": 1000000000000000000}}')
    assert "limits.max_file_bytes is 1000000000000000000, above its ceiling of 16777216" in message


@pytest.mark.parametrize("digits", [21, 5000, 30000])
def test_an_integer_of_thousands_of_digits_is_invalid_config_naming_the_key(digits: int) -> None:
    message = refusal(b'{"limits": {"max_skills": ' + b"9" * digits + b"}}")
    assert f"limits.max_skills is an integer of {digits} digits" in message


def test_a_negative_integer_of_thousands_of_digits_is_invalid_config_naming_the_key() -> None:
    message = refusal(b'{"file_page_bytes": -' + b"9" * 5000 + b"}")
    assert "file_page_bytes is an integer of 5000 digits" in message


@pytest.mark.parametrize("value", [True, False, "10", 1.5, 1e400, None, [], {}])
def test_it_rejects_a_limit_that_is_not_an_integer(value: Any) -> None:
    assert "limits.max_skills must be an integer" in refusal(raw({"limits": {"max_skills": value}}))


def test_it_rejects_nan() -> None:
    assert "search.excerpt_chars must be an integer" in refusal(b'{"search": {"excerpt_chars": NaN}}')


@pytest.mark.parametrize("value", [0, -1])
def test_it_rejects_a_limit_that_counts_nothing(value: int) -> None:
    assert "limits.max_skills must be at least 1" in refusal(raw({"limits": {"max_skills": value}}))


def test_a_file_page_must_hold_one_utf8_character() -> None:
    assert "file_page_bytes must be at least 4" in refusal(b'{"file_page_bytes": 3}')
    assert parse_config(b'{"file_page_bytes": 4}').file_page_bytes == 4


def test_deep_nesting_is_invalid_config_naming_the_key() -> None:
    deep = b'{"limits": {"max_skills": ' + b"[" * 30000 + b"]" * 30000 + b"}}"
    message = refusal(deep)
    assert f"'limits.max_skills' nests deeper than {MAX_NESTING} levels" in message


def test_a_deeply_nested_document_is_invalid_config() -> None:
    assert f"the document nests deeper than {MAX_NESTING} levels" in refusal(b"[" * 30000 + b"]" * 30000)


def test_deep_objects_are_named_by_their_keys() -> None:
    deep = b'{"a": ' * 5000 + b"1" + b"}" * 5000
    assert "'a.a.a.a" in refusal(deep)


def test_nesting_within_the_bound_reaches_the_reader() -> None:
    nested = b'{"limits": {"max_skills": ' + b"[" * (MAX_NESTING - 2) + b"]" * (MAX_NESTING - 2) + b"}}"
    assert "limits.max_skills must be an integer" in refusal(nested)


def test_brackets_inside_strings_are_not_nesting() -> None:
    text = json.dumps({"skills_dir": "[" * 40000}).encode()
    assert "skills_dir must be a non-empty string of at most 255 characters" in refusal(text)


def test_escaped_quotes_do_not_fool_the_nesting_bound() -> None:
    text = b'{"skills_dir": "' + b'\\"[' * 100 + b'", "x": ' + b"[" * 100 + b"]" * 100 + b"}"
    assert "'x' nests deeper" in refusal(text)


def test_a_huge_array_of_extensions_is_invalid_config_naming_the_key() -> None:
    message = refusal(raw(changed(allowed_script_extensions=[f".e{n}" for n in range(MAX_EXTENSIONS + 1)])))
    assert f"allowed_script_extensions holds {MAX_EXTENSIONS + 1} extensions, more than {MAX_EXTENSIONS}" in (
        message
    )


def test_as_many_extensions_as_the_bound_are_accepted() -> None:
    exts = [f".e{n}" for n in range(MAX_EXTENSIONS)]
    assert len(parse_config(raw(changed(allowed_script_extensions=exts))).allowed_script_extensions) == 64


def test_a_huge_array_where_an_integer_belongs_is_refused_naming_the_key() -> None:
    assert "limits.max_skills must be an integer" in refusal(
        b'{"limits": {"max_skills": [' + b"1," * 30000 + b"1]}}"
    )


@pytest.mark.parametrize("document", [b"[]", b'"skills"', b"1", b"null", b"true"])
def test_it_rejects_a_config_that_is_not_an_object(document: bytes) -> None:
    assert "must be a JSON object" in refusal(document)


def test_a_key_given_twice_is_refused() -> None:
    assert "'skills_dir' is given more than once" in refusal(b'{"skills_dir": "a", "skills_dir": "b"}')


def test_a_setting_given_twice_in_a_section_is_refused() -> None:
    message = refusal(b'{"limits": {"max_skills": 10, "max_skills": 100000000}}')
    assert "'limits.max_skills' is given more than once" in message


def test_a_misspelt_key_is_refused_with_a_suggestion() -> None:
    # With partial files, a typo would otherwise leave the setting at its default unnoticed.
    assert "unknown key 'limts' (did you mean 'limits'?)" in refusal(b'{"limts": {"max_skills": 10}}')


def test_a_misspelt_setting_is_refused_with_a_suggestion() -> None:
    message = refusal(b'{"limits": {"max_skils": 10}}')
    assert "unknown key 'limits.max_skils' (did you mean 'limits.max_skills'?)" in message


def test_an_unknown_key_lists_the_known_ones() -> None:
    message = refusal(b'{"colour": "blue"}')
    assert "unknown key 'colour' (known: schema_version, skills_dir," in message


def test_a_long_unknown_key_is_shortened_in_the_message() -> None:
    message = refusal(raw({"k" * 10000: 1}))
    assert len(message) < 500


def test_it_rejects_an_unsupported_schema_version() -> None:
    assert "schema_version 2 is not supported" in refusal(raw(changed(schema_version=2)))


@pytest.mark.parametrize("skills_dir", ["a/b", "..", ".", "a\\b", "", "a\nb", 7])
def test_it_rejects_a_skills_dir_that_is_not_one_directory_name(skills_dir: Any) -> None:
    assert "skills_dir" in refusal(raw(changed(skills_dir=skills_dir)))


@pytest.mark.parametrize("extensions", [["md"], ["."], [".a/b"], ".md", [1], [".x" * 20], [".a\nb"]])
def test_it_rejects_malformed_extensions(extensions: Any) -> None:
    assert "allowed_file_extensions" in refusal(raw(changed(allowed_file_extensions=extensions)))


def test_it_names_every_problem_at_once() -> None:
    message = refusal(raw({"search": "none", "file_page_bytes": "big", "limits": {"max_skills": 0}}))
    assert "search must be an object" in message
    assert "file_page_bytes must be an integer" in message
    assert "limits.max_skills must be at least 1" in message


def test_it_rejects_invalid_json_with_its_position() -> None:
    assert "invalid JSON at line 1" in refusal(b"{not json")


def test_an_unterminated_string_is_invalid_json() -> None:
    assert "invalid JSON" in refusal(b'{"skills_dir": "' + b"[" * 1000)


def test_it_rejects_bytes_that_are_not_utf8() -> None:
    assert "not UTF-8" in refusal(b'{"a": "\xff"}')


def test_it_refuses_an_oversized_config_before_parsing() -> None:
    assert "larger than" in refusal(b" " * (MAX_CONFIG_BYTES + 1))

"""registry.config.json parsing (docs/reference.md#registryconfigjson)."""

import copy
import json
from typing import Any

import pytest

from catalog.config import MAX_CONFIG_BYTES, ConfigError, config_from_dict, parse_config
from tests.support.repos import DEFAULT_CONFIG


def raw(config: Any) -> bytes:
    return json.dumps(config).encode("utf-8")


def changed(**top: Any) -> dict[str, Any]:
    config = copy.deepcopy(DEFAULT_CONFIG)
    config.update(top)
    return config


def test_it_parses_the_project_config() -> None:
    config = parse_config(raw(DEFAULT_CONFIG))
    assert config.schema_version == 1
    assert config.skills_dir == "skills"
    assert config.allowed_file_extensions == (".md", ".txt")
    assert config.allowed_script_extensions == (".sh", ".py", ".js", ".ts", ".rb")
    assert config.limits.max_file_bytes == DEFAULT_CONFIG["limits"]["max_file_bytes"]
    assert config.pagination.max_limit == DEFAULT_CONFIG["pagination"]["max_limit"]
    assert config.search.excerpt_chars == DEFAULT_CONFIG["search"]["excerpt_chars"]
    assert config.file_page_bytes == DEFAULT_CONFIG["file_page_bytes"]


def test_it_round_trips_through_to_dict() -> None:
    config = parse_config(raw(DEFAULT_CONFIG))
    assert config_from_dict(config.to_dict()) == config


def test_it_lower_cases_extensions() -> None:
    config = parse_config(raw(changed(allowed_file_extensions=[".MD"])))
    assert config.allowed_file_extensions == (".md",)


@pytest.mark.parametrize(
    "key", ["schema_version", "skills_dir", "allowed_file_extensions", "limits", "pagination", "search"]
)
def test_it_rejects_a_missing_key(key: str) -> None:
    config = copy.deepcopy(DEFAULT_CONFIG)
    del config[key]
    with pytest.raises(ConfigError, match=f"missing key '{key}'"):
        parse_config(raw(config))


def test_it_rejects_a_missing_limit() -> None:
    config = copy.deepcopy(DEFAULT_CONFIG)
    del config["limits"]["max_file_bytes"]
    with pytest.raises(ConfigError, match=r"limits\.max_file_bytes"):
        parse_config(raw(config))


@pytest.mark.parametrize("value", [True, "10", 1.5, None])
def test_it_rejects_a_limit_that_is_not_an_integer(value: Any) -> None:
    config = copy.deepcopy(DEFAULT_CONFIG)
    config["limits"]["max_skills"] = value
    with pytest.raises(ConfigError, match=r"limits\.max_skills must be an integer"):
        parse_config(raw(config))


def test_it_rejects_a_zero_limit() -> None:
    config = copy.deepcopy(DEFAULT_CONFIG)
    config["limits"]["max_skills"] = 0
    with pytest.raises(ConfigError, match="at least 1"):
        parse_config(raw(config))


def test_it_rejects_an_unsupported_schema_version() -> None:
    with pytest.raises(ConfigError, match="schema_version 2 is not supported"):
        parse_config(raw(changed(schema_version=2)))


@pytest.mark.parametrize("skills_dir", ["a/b", "..", ".", "a\\b", ""])
def test_it_rejects_a_skills_dir_that_is_not_one_directory_name(skills_dir: str) -> None:
    with pytest.raises(ConfigError, match="skills_dir"):
        parse_config(raw(changed(skills_dir=skills_dir)))


@pytest.mark.parametrize("extensions", [["md"], ["."], [".a/b"], ".md", [1]])
def test_it_rejects_malformed_extensions(extensions: Any) -> None:
    with pytest.raises(ConfigError, match="allowed_file_extensions"):
        parse_config(raw(changed(allowed_file_extensions=extensions)))


def test_it_rejects_a_default_limit_above_the_max() -> None:
    with pytest.raises(ConfigError, match=r"pagination.default_limit must not exceed pagination.max_limit"):
        parse_config(raw(changed(pagination={"default_limit": 10, "max_limit": 5})))


def test_it_names_every_problem_at_once() -> None:
    config = copy.deepcopy(DEFAULT_CONFIG)
    del config["search"]
    config["file_page_bytes"] = "big"
    with pytest.raises(ConfigError) as excinfo:
        parse_config(raw(config))
    assert "missing key 'search'" in str(excinfo.value)
    assert "file_page_bytes must be an integer" in str(excinfo.value)


def test_it_rejects_invalid_json_with_its_position() -> None:
    with pytest.raises(ConfigError, match="invalid JSON at line 1"):
        parse_config(b"{not json")


def test_it_rejects_bytes_that_are_not_utf8() -> None:
    with pytest.raises(ConfigError, match="not UTF-8"):
        parse_config(b'{"a": "\xff"}')


def test_it_rejects_a_config_that_is_not_an_object() -> None:
    with pytest.raises(ConfigError, match="must be a JSON object"):
        parse_config(b"[]")


def test_it_refuses_an_oversized_config_before_parsing() -> None:
    with pytest.raises(ConfigError, match="larger than"):
        parse_config(b" " * (MAX_CONFIG_BYTES + 1))

"""The open Agent Skills dialect of SKILL.md (docs/reference.md#skill-format): its
keys and rules at their edges, what stands in for what, vendor keys served as written, and
the typo protection that fails closed."""

from typing import Any

import pytest

from catalog.skill import Dialect
from catalog.skillfile import parse_skill_file
from tests.catalog.open_dialect_support import BASE, errors, parse, warnings, with_keys

# --- the minimal skill --------------------------------------------------------------------------


def test_a_name_and_a_description_make_a_skill() -> None:
    parsed = parse(BASE)
    assert parsed.problems == () and parsed.dialect is Dialect.OPEN
    meta = parsed.metadata
    assert meta is not None
    assert (meta.id, meta.name, meta.description, meta.version) == ("demo", "demo", "Does demo things.", None)
    assert (meta.tags, meta.keywords, meta.requires, meta.required_zdr) == ((), (), (), False)
    assert meta.path == "skills/demo"
    assert parsed.frontmatter == BASE


@pytest.mark.parametrize("key", ["name", "description"])
def test_name_and_description_are_required(key: str) -> None:
    parsed = parse({k: v for k, v in BASE.items() if k != key})
    assert errors(parsed) == ["missing_key"] and parsed.metadata is None


def test_every_key_of_the_standard_is_accepted_and_served_as_written() -> None:
    front = {
        **BASE,
        "license": "Proprietary. LICENSE.txt has complete terms",
        "compatibility": "Python 3.11",
        "metadata": {"author": "example-team", "short-description": "Demo"},
        "allowed-tools": "Bash(git:*) Read",
    }
    parsed = parse(front)
    assert parsed.problems == ()
    assert parsed.frontmatter == front
    assert list(parsed.frontmatter or {}) == list(front)  # in the order written


def test_the_registry_keys_are_accepted_at_the_top_level() -> None:
    parsed = with_keys(
        version="1.2.3", tags=["docs", "pdf"], keywords=["forms"], requires=["python3"], required_zdr=True
    )
    assert parsed.problems == ()
    meta = parsed.metadata
    assert meta is not None
    assert (meta.version, meta.tags, meta.keywords, meta.requires, meta.required_zdr) == (
        "1.2.3",
        ("docs", "pdf"),
        ("forms",),
        ("python3",),
        True,
    )


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"version": "1.0"}, "invalid_version"),
        ({"version": 1.0}, "invalid_type"),
        ({"tags": ["Not A Slug"]}, "invalid_tag"),
        ({"tags": ["a", "a"]}, "duplicate_tag"),
        ({"keywords": [" "]}, "invalid_keyword"),
        ({"requires": "python3"}, "invalid_type"),
        ({"required_zdr": "true"}, "invalid_required_zdr"),
        ({"required_zdr": "yes"}, "invalid_required_zdr"),
        ({"license": ["MIT"]}, "invalid_type"),
        ({"compatibility": 3}, "invalid_type"),
        ({"metadata": ["a"]}, "invalid_type"),
        ({"metadata": None}, "invalid_type"),
        ({"allowed-tools": {"Bash": True}}, "invalid_type"),
        ({"allowed-tools": ["Read", 3]}, "invalid_type"),
    ],
)
def test_the_registry_keys_keep_their_rules(fields: dict[str, Any], code: str) -> None:
    parsed = with_keys(**fields)
    assert errors(parsed) == [code] and parsed.metadata is None


# --- name and description at their edges -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("a" * 64, True),
        ("a" * 65, False),
        ("1c-create", True),
        ("two-words", True),
        ("Bad_Name", False),
        ("-lead", False),
        ("trail-", False),
        ("two--dash", False),
        ("Upper", False),
        ("", False),
        ("café", False),
    ],
)
def test_a_name_is_a_slug_of_1_to_64_characters(name: str, ok: bool) -> None:
    parsed = parse({"name": name, "description": "D."}, path=f"skills/{name}")
    assert errors(parsed) == ([] if ok else ["invalid_name"])


@pytest.mark.parametrize(
    ("description", "ok"),
    [
        ("x" * 1024, True),
        ("x" * 1025, False),
        ("é" * 1024, True),  # 2048 bytes: characters are counted, not bytes
        ("é" * 1025, False),
        ("水" * 1024, True),
        ("", False),
        ("   ", False),
    ],
)
def test_a_description_is_1_to_1024_characters(description: str, ok: bool) -> None:
    assert errors(with_keys(description=description)) == ([] if ok else ["invalid_description"])


@pytest.mark.parametrize(
    ("compatibility", "ok"), [("c" * 500, True), ("c" * 501, False), ("é" * 500, True), ("", True)]
)
def test_compatibility_is_at_most_500_characters(compatibility: str, ok: bool) -> None:
    assert errors(with_keys(compatibility=compatibility)) == ([] if ok else ["invalid_compatibility"])


@pytest.mark.parametrize(
    "tools", ["Read Write Edit", "Bash, Read, Glob", "Bash(bun run *lint/*), Read", ["Read", "Edit"], []]
)
def test_allowed_tools_is_a_string_or_a_list_of_strings_served_as_written(tools: Any) -> None:
    parsed = with_keys(**{"allowed-tools": tools})
    assert parsed.problems == ()
    assert (parsed.frontmatter or {})["allowed-tools"] == tools


# --- metadata ----------------------------------------------------------------------------------


def test_metadata_version_stands_for_a_missing_version() -> None:
    meta = with_keys(metadata={"version": "1.4.0", "author": "x"}).metadata
    assert meta is not None and meta.version == "1.4.0"


@pytest.mark.parametrize("value", ["1.0", "1.4", "1.0-clearai", "n/v", 1.0, 2])
def test_a_metadata_version_that_is_no_semver_is_a_warning_and_no_version(value: Any) -> None:
    parsed = with_keys(metadata={"version": value})
    assert warnings(parsed) == ["unversioned_metadata_version"] and errors(parsed) == []
    assert parsed.metadata is not None and parsed.metadata.version is None
    assert (parsed.frontmatter or {})["metadata"] == {"version": value}


def test_the_same_version_in_both_places_is_one_version() -> None:
    meta = with_keys(version="2.0.0", metadata={"version": "2.0.0"}).metadata
    assert meta is not None and meta.version == "2.0.0"


@pytest.mark.parametrize("inner", ["2.0.1", "2.0", 2.0])
def test_versions_that_disagree_are_an_error(inner: Any) -> None:
    parsed = with_keys(version="2.0.0", metadata={"version": inner})
    assert errors(parsed) == ["conflicting_keys"]


@pytest.mark.parametrize(("value", "expected"), [("true", True), ("false", False)])
def test_metadata_required_zdr_stands_for_required_zdr(value: str, expected: bool) -> None:
    meta = with_keys(metadata={"required_zdr": value}).metadata
    assert meta is not None and meta.required_zdr is expected


@pytest.mark.parametrize("value", [True, False, "True", "TRUE", "yes", "1", "", " true", None, ["true"]])
def test_any_other_metadata_required_zdr_is_an_error(value: Any) -> None:
    parsed = with_keys(metadata={"required_zdr": value})
    assert errors(parsed) == ["invalid_required_zdr"] and parsed.metadata is None


@pytest.mark.parametrize(("top", "inner"), [(True, "false"), (False, "true")])
def test_required_zdr_in_both_places_must_agree(top: bool, inner: str) -> None:
    assert errors(with_keys(required_zdr=top, metadata={"required_zdr": inner})) == ["conflicting_keys"]
    agreed = with_keys(required_zdr=top, metadata={"required_zdr": str(top).lower()}).metadata
    assert agreed is not None and agreed.required_zdr is top


@pytest.mark.parametrize(
    "metadata",
    [
        {"openclaw": {"emoji": "x", "requires": {"bins": ["python3"]}}},
        {"agent_ids": ["a", "b"]},
        {"tier": 2},
        {"reviewed": True},
        {1: "one"},
    ],
)
def test_metadata_values_that_are_no_strings_are_warnings_served_as_written(metadata: dict[Any, Any]) -> None:
    parsed = with_keys(metadata=metadata)
    assert errors(parsed) == [] and warnings(parsed) == ["metadata_not_string"]
    assert parsed.metadata is not None


# --- the file around the frontmatter --------------------------------------------------------------


def test_a_leading_byte_order_mark_is_tolerated_in_the_open_dialect() -> None:
    parsed = parse_skill_file("\ufeff---\nname: demo\ndescription: D.\n---\nSteps.\n".encode())
    assert parsed.problems == () and parsed.instructions == "Steps.\n"


def test_a_byte_order_mark_is_still_refused_in_the_registry_dialect() -> None:
    text = "\ufeff---\nschema_version: 1\nid: demo\nname: D\ndescription: D.\nversion: 1.0.0\n---\nSteps.\n"
    parsed = parse_skill_file(text.encode())
    assert [p.code for p in parsed.problems] == ["missing_frontmatter"]
    assert "byte-order mark" in parsed.problems[0].message


def test_crlf_line_endings_keep_the_body_as_written() -> None:
    parsed = parse_skill_file(b"---\r\nname: demo\r\ndescription: D.\r\n---\r\nLine one.\r\nLine two.\r\n")
    assert parsed.problems == () and parsed.instructions == "Line one.\r\nLine two.\r\n"


def test_an_empty_body_is_refused_as_in_the_registry_dialect() -> None:
    assert errors(parse(BASE, body="  \n")) == ["empty_body"]


def test_an_unquoted_colon_in_a_description_is_a_yaml_error_naming_the_line() -> None:
    parsed = parse("name: demo\ndescription: a: b\n")
    assert errors(parsed) == ["invalid_yaml"] and "line 3" in parsed.problems[0].message

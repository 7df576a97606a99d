"""One SKILL.md, key by key: the type and the rule of each key of the registry dialect
(docs/reference.md#skill-format)."""

from typing import Any

import pytest

from catalog.skillfile import parse_skill_file
from tests.catalog.skillfile_support import VALID_FRONT, only_problem, parse, parse_front, problem_codes
from tests.support.skillmd import skill_md

# --- key by key -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "code"),
    [(2, "unsupported_schema_version"), ("1", "invalid_type"), (True, "invalid_type"), (1.0, "invalid_type")],
)
def test_it_rejects_a_schema_version_other_than_the_integer_1(value: Any, code: str) -> None:
    assert problem_codes(parse(schema_version=value)) == [code]


@pytest.mark.parametrize("skill_id", ["demo", "a", "data-export-2", "x" * 64, "0abc"])
def test_it_accepts_a_slug_id(skill_id: str) -> None:
    parsed = parse_skill_file(skill_md(skill_id).encode())
    assert parsed.problems == ()


@pytest.mark.parametrize(
    "skill_id", ["Demo", "demo_x", "-demo", "demo-", "de--mo", "de mo", "", "x" * 65, "démo"]
)
def test_it_rejects_an_id_that_is_not_a_slug(skill_id: str) -> None:
    assert problem_codes(parse(id=skill_id)) == ["invalid_id"]


def test_it_rejects_an_id_that_is_not_a_string() -> None:
    assert problem_codes(parse(id=12)) == ["invalid_type"]


@pytest.mark.parametrize("name", ["D", "x" * 100, "Naïve café ☕"])
def test_it_accepts_a_one_line_name_of_1_to_100_chars(name: str) -> None:
    assert parse(name=name).problems == ()


@pytest.mark.parametrize("name", ["", "   ", "x" * 101, "two\nlines", "carriage\rreturn", "para\u2029sep"])
def test_it_rejects_a_name_that_is_empty_too_long_or_multiline(name: str) -> None:
    assert problem_codes(parse(name=name)) == ["invalid_name"]


def test_it_rejects_a_name_that_is_not_a_string() -> None:
    assert problem_codes(parse(name=["a"])) == ["invalid_type"]


@pytest.mark.parametrize("description", ["d", "x" * 1024, "first line\nsecond line"])
def test_it_accepts_a_description_of_1_to_1024_chars(description: str) -> None:
    assert parse(description=description).problems == ()


@pytest.mark.parametrize("description", ["", " \n ", "x" * 1025])
def test_it_rejects_a_description_that_is_empty_or_too_long(description: str) -> None:
    assert problem_codes(parse(description=description)) == ["invalid_description"]


@pytest.mark.parametrize(
    "version", ["0.0.1", "1.2.3", "1.0.0-rc.1", "1.0.0-alpha.beta.1", "1.0.0+build.5", "10.20.30"]
)
def test_it_accepts_a_semantic_version(version: str) -> None:
    assert parse(version=version).problems == ()


@pytest.mark.parametrize("version", ["1.2", "v1.2.3", "01.2.3", "1.2.3-01", "latest", "", "1.2.3.4"])
def test_it_rejects_a_version_that_is_not_semver(version: str) -> None:
    assert problem_codes(parse(version=version)) == ["invalid_version"]


def test_it_rejects_an_unquoted_numeric_version_and_says_to_write_three_numbers() -> None:
    parsed = parse_front("", front=VALID_FRONT.replace("version: 1.0.0", "version: 1.0"))
    assert problem_codes(parsed) == ["invalid_type"]
    assert only_problem(parsed).endswith(
        "version 1.0 is a YAML number, not a version; a version is three numbers MAJOR.MINOR.PATCH "
        "such as 1.0.0: write three numbers (version: 1.0.0, which YAML reads as text); "
        "quoting 1.0 is not enough"
    )


@pytest.mark.parametrize(
    ("version", "fix"),
    [("1.0", "write version: 1.0.0"), ("v1.2.3", "write version: 1.2.3"), ("2", "write version: 2.0.0")],
)
def test_a_short_or_prefixed_version_is_told_the_three_numbers_to_write(version: str, fix: str) -> None:
    message = only_problem(parse(version=version))
    assert (
        f"version {version!r} is not a semantic version; a version is three numbers MAJOR.MINOR.PATCH"
        in message
    )
    assert message.endswith(fix)


def test_it_rejects_a_tag_that_is_not_a_slug() -> None:
    parsed = parse(tags=["ok", "Not Ok"])
    assert problem_codes(parsed) == ["invalid_tag"]
    assert "'Not Ok'" in only_problem(parsed)


def test_it_rejects_a_tag_longer_than_an_id() -> None:
    assert problem_codes(parse(tags=["x" * 65])) == ["invalid_tag"]


def test_it_rejects_duplicate_tags() -> None:
    parsed = parse(tags=["a", "b", "a"])
    assert problem_codes(parsed) == ["duplicate_tag"]
    assert only_problem(parsed) == "tags lists 'a' more than once"


@pytest.mark.parametrize("key", ["tags", "keywords", "requires", "files"])
@pytest.mark.parametrize("value", ["a-string", {"a": 1}, None])
def test_it_rejects_a_list_key_that_is_not_a_list(key: str, value: Any) -> None:
    parsed = parse_front(f"{key}: {value if value is not None else ''}\n")
    assert problem_codes(parsed) == ["invalid_type"]


@pytest.mark.parametrize("key", ["tags", "keywords", "requires", "files"])
def test_it_rejects_a_list_item_that_is_not_a_string(key: str) -> None:
    assert problem_codes(parse(**{key: ["ok", 3]})) == ["invalid_type"]


@pytest.mark.parametrize("key", ["tags", "keywords", "requires", "files"])
def test_it_accepts_an_empty_list(key: str) -> None:
    assert parse(**{key: []}).problems == ()


@pytest.mark.parametrize("keyword", ["", "   "])
def test_it_rejects_an_empty_keyword(keyword: str) -> None:
    assert problem_codes(parse(keywords=["ok", keyword])) == ["invalid_keyword"]


@pytest.mark.parametrize(
    "path", ["references/a.md", "templates/deep/nested/t.txt", "scripts/run.sh", "references/with space.md"]
)
def test_it_accepts_a_well_formed_files_entry(path: str) -> None:
    assert parse(files=[path]).problems == ()


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/etc/passwd", "starts with '/'"),
        ("references/../../secret.md", "'..' segment"),
        ("../x.md", "'..' segment"),
        ("./references/a.md", "'.' segment"),
        ("references/./a.md", "'.' segment"),
        ("references\\a.md", "backslash"),
        ("references/a%2e.md", "'%'"),
        ("references/a\0.md", "NUL"),
        ("", "is empty"),
        ("references//a.md", "empty segment"),
        ("references/", "empty segment"),
        ("SKILL.md", "SKILL.md itself"),
    ],
)
def test_it_rejects_a_malformed_files_entry_naming_it(path: str, why: str) -> None:
    parsed = parse(files=[path])
    assert problem_codes(parsed) == ["invalid_path"]
    assert why in only_problem(parsed)
    assert repr(path) in only_problem(parsed)


def test_it_rejects_a_duplicate_files_entry() -> None:
    parsed = parse(files=["references/a.md", "references/a.md"])
    assert problem_codes(parsed) == ["duplicate_path"]
    assert only_problem(parsed) == "files lists 'references/a.md' more than once"


@pytest.mark.parametrize(("literal", "expected"), [("true", True), ("false", False)])
def test_it_accepts_required_zdr_as_a_real_boolean(literal: str, expected: bool) -> None:
    parsed = parse_front(f"required_zdr: {literal}\n")
    assert parsed.problems == ()
    assert parsed.metadata is not None
    assert parsed.metadata.required_zdr is expected


@pytest.mark.parametrize(
    "literal",
    [
        '"true"',
        "'false'",
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "Yes",
        "ON",
        "True",
        "FALSE",
        "1",
        "0",
        "",
        "~",
    ],
)
def test_it_rejects_required_zdr_that_is_not_true_or_false(literal: str) -> None:
    parsed = parse_front(f"required_zdr: {literal}\n")
    assert problem_codes(parsed) == ["invalid_required_zdr"]
    assert only_problem(parsed).startswith("required_zdr must be true or false")


def test_it_hints_at_removing_quotes_from_a_quoted_boolean() -> None:
    assert only_problem(parse_front('required_zdr: "true"\n')).endswith("(remove the quotes)")


def test_it_rejects_an_explicitly_tagged_yaml_1_1_boolean() -> None:
    assert problem_codes(parse_front("required_zdr: !!bool yes\n")) == ["invalid_yaml"]


def test_it_reads_yes_and_on_as_plain_text_in_text_fields() -> None:
    parsed = parse_front("tags: [on, yes]\n", front=VALID_FRONT.replace("name: Demo", "name: yes"))
    assert parsed.problems == ()
    assert parsed.metadata is not None
    assert parsed.metadata.name == "yes"
    assert parsed.metadata.tags == ("on", "yes")

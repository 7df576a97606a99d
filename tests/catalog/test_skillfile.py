"""One SKILL.md: frontmatter between `---` lines, strict keys and types, the body
(docs/reference.md#skill-format)."""

import time
import tracemalloc
from typing import Any

import pytest

from catalog.fields import MAX_ITEM_CHARS, MAX_LIST_ITEMS
from catalog.registry_dialect import KNOWN_KEYS, REQUIRED_KEYS
from catalog.skill import Dialect
from catalog.skillfile import ParsedSkillFile, parse_skill_file
from tests.support.skillmd import skill_md

VALID_FRONT = "schema_version: 1\nid: demo\nname: Demo\ndescription: Does demo things.\nversion: 1.0.0\n"


def parse(**fields: Any) -> ParsedSkillFile:
    return parse_skill_file(skill_md("demo", **fields).encode("utf-8"))


def parse_front(extra: str, front: str = VALID_FRONT, body: str = "Body.\n") -> ParsedSkillFile:
    return parse_skill_file(f"---\n{front}{extra}---\n{body}".encode())


def problem_codes(parsed: ParsedSkillFile) -> list[str]:
    return [problem.code for problem in parsed.problems]


def only_problem(parsed: ParsedSkillFile) -> str:
    """The message of the single problem, asserting there is exactly one."""
    assert len(parsed.problems) == 1, parsed.problems
    return parsed.problems[0].message


# --- the shape of the file --------------------------------------------------------------


def test_it_parses_a_minimal_skill_with_defaults() -> None:
    parsed = parse()
    assert parsed.problems == ()
    front = parsed.metadata
    assert front is not None
    assert (parsed.valid["schema_version"], front.id, front.name, front.version) == (
        1,
        "demo",
        "demo",
        "1.0.0",
    )
    assert front.description == "How to demo."
    assert (front.tags, front.keywords, front.requires, parsed.valid["files"]) == ((), (), (), ())
    assert front.required_zdr is False
    assert parsed.dialect is Dialect.REGISTRY


def test_it_parses_every_optional_key() -> None:
    parsed = parse(
        tags=["data", "export-csv"],
        keywords=["csv", "spreadsheet export"],
        requires=["python3", "network access"],
        files=["references/a.md", "scripts/run.sh"],
        required_zdr=True,
    )
    assert parsed.problems == ()
    front = parsed.metadata
    assert front is not None
    assert front.tags == ("data", "export-csv")
    assert front.keywords == ("csv", "spreadsheet export")
    assert front.requires == ("python3", "network access")
    assert parsed.valid["files"] == ("references/a.md", "scripts/run.sh")
    assert front.required_zdr is True


def test_it_keeps_the_instructions_exactly_as_written() -> None:
    body = "\n# Title\n\n  indented line\r\nlast line without newline"
    parsed = parse_skill_file(f"---\n{VALID_FRONT}---\n{body}".encode())
    assert parsed.problems == ()
    assert parsed.instructions == body


def test_it_accepts_crlf_line_endings() -> None:
    text = f"---\r\n{VALID_FRONT.replace(chr(10), chr(13) + chr(10))}---\r\nBody.\r\n"
    parsed = parse_skill_file(text.encode())
    assert parsed.problems == ()
    assert parsed.instructions == "Body.\r\n"


def test_it_stops_the_frontmatter_at_the_first_closing_line() -> None:
    parsed = parse_front("", body="Text\n---\nmore: text\n")
    assert parsed.problems == ()
    assert parsed.instructions == "Text\n---\nmore: text\n"


def test_it_rejects_a_file_without_frontmatter() -> None:
    parsed = parse_skill_file(b"# Just markdown\n")
    assert problem_codes(parsed) == ["missing_frontmatter"]


def test_it_rejects_frontmatter_that_does_not_start_on_the_first_line() -> None:
    assert problem_codes(parse_skill_file(f"\n---\n{VALID_FRONT}---\nBody\n".encode())) == [
        "missing_frontmatter"
    ]


def test_it_rejects_a_byte_order_mark_with_a_hint() -> None:
    parsed = parse_skill_file(f"\ufeff---\n{VALID_FRONT}---\nBody\n".encode())
    assert "byte-order mark" in only_problem(parsed)


def test_it_rejects_unterminated_frontmatter() -> None:
    parsed = parse_skill_file(f"---\n{VALID_FRONT}Body\n".encode())
    assert problem_codes(parsed) == ["unterminated_frontmatter"]


@pytest.mark.parametrize("line", ["----", "--- ", "...", " ---"])
def test_it_accepts_only_an_exact_closing_line(line: str) -> None:
    parsed = parse_skill_file(f"---\n{VALID_FRONT}{line}\nBody\n".encode())
    assert problem_codes(parsed) == ["unterminated_frontmatter"]


@pytest.mark.parametrize("body", ["", "\n", "   \n\t\n"])
def test_it_rejects_an_empty_or_blank_body(body: str) -> None:
    parsed = parse_front("", body=body)
    assert problem_codes(parsed) == ["empty_body"]
    assert parsed.metadata is None


def test_it_rejects_an_empty_body_when_the_closing_line_ends_the_file() -> None:
    assert problem_codes(parse_skill_file(f"---\n{VALID_FRONT}---".encode())) == ["empty_body"]


def test_it_rejects_a_nul_byte() -> None:
    parsed = parse_skill_file(f"---\n{VALID_FRONT}---\nBo\0dy\n".encode())
    assert problem_codes(parsed) == ["binary_content"]


def test_it_rejects_invalid_utf8() -> None:
    parsed = parse_skill_file(f"---\n{VALID_FRONT}---\n".encode() + b"caf\xe9\n")
    assert problem_codes(parsed) == ["not_utf8"]


# --- YAML strictness --------------------------------------------------------------------


def test_it_rejects_invalid_yaml_with_the_skill_md_line_number() -> None:
    parsed = parse_front("tags: [a, b\n")
    assert problem_codes(parsed) == ["invalid_yaml"]
    # libyaml notices the missing ']' where the frontmatter ends: the closing line, line 8.
    assert only_problem(parsed) == "frontmatter is not valid YAML at line 8: did not find expected ',' or ']'"


def test_it_rejects_a_duplicate_key_naming_it_and_its_line() -> None:
    parsed = parse_front("name: Other\n")
    assert problem_codes(parsed) == ["duplicate_key"]
    assert only_problem(parsed) == "frontmatter has a duplicate key 'name' at line 7"


def test_it_rejects_merge_keys() -> None:
    parsed = parse_front("extra: &x {a: 1}\nother:\n  <<: *x\n")
    assert "merge keys" in parsed.problems[0].message


@pytest.mark.parametrize("front", ["", "- a\n- b\n", "just text\n", "42\n"])
def test_it_rejects_frontmatter_that_is_not_a_mapping(front: str) -> None:
    assert problem_codes(parse_front("", front=front)) == ["frontmatter_not_mapping"]


def test_it_refuses_python_specific_yaml_tags() -> None:
    assert problem_codes(parse_front("x: !!python/object/apply:os.system ['true']\n")) == ["invalid_yaml"]


def test_it_rejects_an_unknown_key_and_suggests_the_closest_known_one() -> None:
    parsed = parse_front("required_zrd: true\n")
    assert problem_codes(parsed) == ["unknown_key"]
    assert only_problem(parsed) == "unknown key 'required_zrd': did you mean 'required_zdr'?"
    assert parsed.metadata is None


def test_it_rejects_an_unknown_key_with_no_close_match_by_listing_the_keys() -> None:
    message = only_problem(parse_front("homepage: https://example.com\n"))
    assert message.startswith("unknown key 'homepage' (keys are: schema_version, id,")


def test_it_rejects_a_key_that_is_not_a_string() -> None:
    assert problem_codes(parse_front("1: one\n")) == ["unknown_key"]


@pytest.mark.parametrize("key", [key for key in REQUIRED_KEYS if key != "schema_version"])
def test_it_rejects_a_missing_required_key(key: str) -> None:
    parsed = parse(**{key: None})
    assert problem_codes(parsed) == ["missing_key"]
    assert only_problem(parsed) == f"missing required key {key!r}"


def test_without_schema_version_the_frontmatter_is_read_in_the_open_dialect() -> None:
    parsed = parse(schema_version=None, name="Demo")
    assert parsed.dialect is Dialect.OPEN
    # The registry's `id` is a vendor key there, and the name "Demo" is no slug.
    assert problem_codes(parsed) == ["vendor_key", "invalid_name"]


def test_it_knows_exactly_the_keys_of_the_spec() -> None:
    assert set(KNOWN_KEYS) == {
        "schema_version",
        "id",
        "name",
        "description",
        "version",
        "tags",
        "keywords",
        "requires",
        "files",
        "required_zdr",
    }


def test_it_reports_every_problem_at_once() -> None:
    parsed = parse(id="Bad_Id", name="", version="one", tags="x", required_zdr="true")
    assert sorted(problem_codes(parsed)) == [
        "invalid_id",
        "invalid_name",
        "invalid_required_zdr",
        "invalid_type",
        "invalid_version",
    ]


def test_it_keeps_the_values_that_passed_when_others_failed() -> None:
    parsed = parse(name="", files=["references/a.md"])
    assert parsed.metadata is None
    assert parsed.valid["id"] == "demo"
    assert parsed.valid["version"] == "1.0.0"
    assert parsed.valid["files"] == ("references/a.md",)


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


# --- list bounds (docs/reference.md#limits) ---------------------------------------------


LIST_KEYS = {
    "tags": lambda n: f"tag-{n}",
    "keywords": lambda n: f"keyword {n}",
    "requires": lambda n: f"need {n}",
}


@pytest.mark.parametrize("key", LIST_KEYS)
def test_a_list_of_64_items_passes_and_65_is_too_many_items(key: str) -> None:
    item = LIST_KEYS[key]
    assert parse(**{key: [item(n) for n in range(MAX_LIST_ITEMS)]}).problems == ()
    parsed = parse(**{key: [item(n) for n in range(MAX_LIST_ITEMS + 1)]})
    assert problem_codes(parsed) == ["too_many_items"]
    assert only_problem(parsed) == f"{key} holds 65 items, more than 64"


@pytest.mark.parametrize("key", ["keywords", "requires"])
def test_an_item_of_200_characters_passes_and_201_is_too_long(key: str) -> None:
    assert parse(**{key: ["k" * MAX_ITEM_CHARS]}).problems == ()
    parsed = parse(**{key: ["k" * (MAX_ITEM_CHARS + 1)]})
    assert problem_codes(parsed) == ["item_too_long"]
    assert "has 201 characters, more than 200" in only_problem(parsed)


@pytest.mark.parametrize("key", ["keywords", "requires"])
def test_a_repeated_keyword_or_requirement_is_a_duplicate_item(key: str) -> None:
    parsed = parse(**{key: ["csv", "pdf", "csv"]})
    assert problem_codes(parsed) == ["duplicate_item"]
    assert only_problem(parsed) == f"{key} lists 'csv' more than once"


def test_files_may_list_max_files_paths_and_one_more_is_too_many_files() -> None:
    listed = [f"references/{n}.md" for n in range(4)]
    text = skill_md("demo", files=listed).encode()
    assert parse_skill_file(text, max_files=4).problems == ()
    parsed = parse_skill_file(text, max_files=3)
    assert problem_codes(parsed) == ["too_many_files"]
    assert only_problem(parsed) == "files holds 4 items, more than max_files_per_skill (3)"


def test_a_files_path_of_201_characters_is_too_long() -> None:
    assert parse(files=["references/" + "a" * (MAX_ITEM_CHARS - 14) + ".md"]).problems == ()
    parsed = parse(files=["references/" + "a" * (MAX_ITEM_CHARS - 13) + ".md"])
    assert problem_codes(parsed) == ["item_too_long"]


def test_aliases_count_as_the_items_they_stand_for() -> None:
    # 64 uses of one anchored keyword: 64 items, and duplicates of each other.
    uses = ", ".join(["*k"] * (MAX_LIST_ITEMS - 1))
    parsed = parse_front(f'keywords: [&k "csv", {uses}]\n')
    assert problem_codes(parsed) == ["duplicate_item"]
    uses = ", ".join(["*k"] * MAX_LIST_ITEMS)
    parsed = parse_front(f'keywords: [&k "csv", {uses}]\n')
    assert problem_codes(parsed) == ["too_many_items"]
    assert only_problem(parsed) == "keywords holds 65 items, more than 64"


def test_the_reported_keyword_bomb_is_refused_by_its_count_fast() -> None:
    """Finding 2 of issue 15: 20,000 characters anchored once, then 11,000 aliases to it."""
    uses = ", ".join(["*s"] * 11_000)
    front = f'keywords: [&s "{"x" * 20_000}", {uses}]\n'
    started = time.perf_counter()
    tracemalloc.start()
    try:
        parsed = parse_front(front)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 5
    assert peak < 20 * 1024 * 1024
    assert parsed.metadata is None
    messages = {problem.code: problem.message for problem in parsed.problems}
    assert messages["too_many_items"] == "keywords holds 11001 items, more than 64"


def test_a_bomb_of_short_keywords_within_the_expansion_budget_is_refused() -> None:
    # 11,001 keywords of five characters expand to less than four times what is written,
    # so only the list bound can refuse them.
    uses = ", ".join(["*s"] * 11_000)
    parsed = parse_front(f'keywords: [&s "xxxxx", {uses}]\n')
    assert problem_codes(parsed) == ["too_many_items"]

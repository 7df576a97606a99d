"""One SKILL.md: frontmatter between `---` lines, strict keys and types, the body
(docs/reference.md#skill-format)."""

import pytest

from catalog.registry_dialect import KNOWN_KEYS, REQUIRED_KEYS
from catalog.skill import Dialect
from catalog.skillfile import parse_skill_file
from tests.catalog.skillfile_support import VALID_FRONT, only_problem, parse, parse_front, problem_codes

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

"""The open Agent Skills dialect of SKILL.md (docs/reference.md#skill-format): its
keys and rules at their edges, what stands in for what, vendor keys served as written, and
the typo protection that fails closed."""

import itertools
import string
from typing import Any

import pytest
import yaml

from catalog.fields import (
    MAX_FRONTMATTER_COST,
    MAX_ITEM_CHARS,
    MAX_LIST_ITEMS,
    MAX_METADATA_ENTRIES,
    MAX_METADATA_VALUE_CHARS,
)
from catalog.open_dialect import OPEN_KEYS
from catalog.skill import Dialect
from catalog.skillfile import ParsedSkillFile, parse_skill_file

BASE = {"name": "demo", "description": "Does demo things."}


def parse(front: dict[str, Any] | str, body: str = "Steps.\n", path: str = "skills/demo") -> ParsedSkillFile:
    text = front if isinstance(front, str) else yaml.safe_dump(front, sort_keys=False, allow_unicode=True)
    return parse_skill_file(f"---\n{text}---\n{body}".encode(), path)


def with_keys(**fields: Any) -> ParsedSkillFile:
    return parse({**BASE, **fields})


def errors(parsed: ParsedSkillFile) -> list[str]:
    return [problem.code for problem in parsed.problems if problem.severity == "error"]


def warnings(parsed: ParsedSkillFile) -> list[str]:
    return [problem.code for problem in parsed.problems if problem.severity == "warning"]


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


# --- vendor keys and typos -----------------------------------------------------------------------

VENDOR_KEYS = [
    "argument-hint",
    "user-invocable",
    "user-invokable",
    "disable-model-invocation",
    "model",
    "context",
    "type",
    "triggers",
    "date",
    "when_to_use",
    "arguments",
    "effort",
    "agent",
    "hooks",
    "paths",
    "shell",
    "homepage",
    "repository",
    "alwaysApply",
    "category",
    "owner",
    "target",
    "tools",
]


@pytest.mark.parametrize("key", VENDOR_KEYS)
def test_a_vendor_key_is_a_warning_and_is_served_as_written(key: str) -> None:
    parsed = with_keys(**{key: "value"})
    assert errors(parsed) == [] and warnings(parsed) == ["vendor_key"]
    assert parsed.metadata is not None
    assert (parsed.frontmatter or {})[key] == "value"


def test_a_yaml_date_in_a_vendor_key_is_served_as_its_iso_string() -> None:
    parsed = parse("name: demo\ndescription: D.\ndate: 2026-01-15\nat: 2026-01-15 10:30:00\n")
    assert (parsed.frontmatter or {})["date"] == "2026-01-15"
    assert (parsed.frontmatter or {})["at"] == "2026-01-15T10:30:00"


@pytest.mark.parametrize(
    ("key", "suggested"),
    [
        ("required_zrd", "required_zdr"),
        ("versoin", "version"),
        ("licence", "license"),
        ("tag", "tags"),
        ("allowed_tools", "allowed-tools"),
        ("allowedTools", "allowed-tools"),
        ("Description", "description"),
        ("keyword", "keywords"),
        ("require", "requires"),
        ("metdata", "metadata"),
        ("compatability", "compatibility"),
        ("schema_verison", "schema_version"),
        ("file", "files"),
        ("nme", "name"),
    ],
)
def test_a_key_near_a_known_key_is_an_error_with_a_suggestion(key: str, suggested: str) -> None:
    parsed = with_keys(**{key: "x"})
    assert errors(parsed) == ["unknown_key"]
    assert parsed.problems[0].message == f"unknown key {key!r}: did you mean {suggested!r}?"


@pytest.mark.parametrize(
    ("key", "suggested"), [("versoin", "version"), ("licence", "license"), ("Tags", "tags")]
)
def test_a_metadata_key_near_a_known_key_is_an_error_too(key: str, suggested: str) -> None:
    parsed = with_keys(metadata={key: "x"})
    assert errors(parsed) == ["unknown_key"]
    assert parsed.problems[0].message == f"unknown metadata key {key!r}: did you mean {suggested!r}?"


def test_short_keys_need_a_closer_miss_so_real_vendor_keys_pass() -> None:
    # `date` is two edits from `name`, `type` and `tier` three from `tags`: vendor keys.
    assert errors(with_keys(date="2026-01-01", tier="x")) == []
    assert errors(with_keys(metadata={"date": "x", "tier": "y"})) == []


def test_registry_keys_in_the_open_dialect_are_warnings() -> None:
    parsed = with_keys(id="demo", files=["a.md"])
    assert errors(parsed) == [] and warnings(parsed) == ["vendor_key", "vendor_key"]


def _one_edit(word: str) -> set[str]:
    letters = string.ascii_lowercase + "_-"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        {left + right[1:] for left, right in splits if right}
        | {left + right[1] + right[0] + right[2:] for left, right in splits if len(right) > 1}
        | {left + char + right[1:] for left, right in splits if right for char in letters}
        | {left + char + right for left, right in splits for char in letters}
    )


def required_zdr_typos() -> list[str]:
    """Every spelling one edit from required_zdr, a sample of two edits, case and separator
    variants: each must be refused, never served as a vendor key."""
    one = _one_edit("required_zdr")
    two = sorted({typo for first in sorted(one)[::37] for typo in _one_edit(first)})[::11]
    cases = {
        "Required_ZDR",
        "REQUIRED_ZDR",
        "Required_zdr",
        "required_Zdr",
        "required-zdr",
        "Required-ZDR",
        "required zdr",
        "requiredzdr",
        "required__zdr",
        "required_zdr_",
        "_required_zdr",
        "requried_zdr",
        "required_dzr",
        "reqired_zrd",
    }
    variants = {"".join(chars) for chars in itertools.product(*(({c, c.upper()}) for c in "zdr"))}
    cases |= {f"required_{v}" for v in variants} | {f"Required-{v}" for v in variants}
    return sorted((one | set(two) | cases) - {"required_zdr", "requires"})


TYPOS = required_zdr_typos()


def test_the_typo_set_is_large() -> None:
    assert len(TYPOS) > 500


@pytest.mark.parametrize("where", ["top", "metadata"])
def test_every_typo_of_required_zdr_is_refused(where: str) -> None:
    served = []
    for typo in TYPOS:
        fields = {typo: True} if where == "top" else {"metadata": {typo: "true"}}
        parsed = with_keys(**fields)
        if "unknown_key" not in errors(parsed) or parsed.metadata is not None:
            served.append(typo)
    assert not served, f"typos of required_zdr that would publish: {served[:20]}"


def test_the_known_keys_are_those_of_the_standard_and_the_registry() -> None:
    assert set(OPEN_KEYS) == {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
        "version",
        "tags",
        "keywords",
        "requires",
        "required_zdr",
    }


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


# --- bounds on what is stored and served as written (docs/reference.md#limits) ----------------


def tools(count: int, width: int = 5) -> list[str]:
    return [f"T{n:0{width - 1}d}" for n in range(count)]


@pytest.mark.parametrize("as_string", [False, True], ids=["list", "string"])
def test_allowed_tools_hold_at_most_64_tools(as_string: bool) -> None:
    def given(names: list[str]) -> str | list[str]:
        return " ".join(names) if as_string else names

    assert with_keys(**{"allowed-tools": given(tools(MAX_LIST_ITEMS))}).problems == ()
    parsed = with_keys(**{"allowed-tools": given(tools(MAX_LIST_ITEMS + 1))})
    assert errors(parsed) == ["too_many_items"]
    assert parsed.problems[0].message == "allowed-tools holds 65 items, more than 64"


@pytest.mark.parametrize("as_string", [False, True], ids=["list", "string"])
def test_an_allowed_tool_of_201_characters_is_too_long(as_string: bool) -> None:
    def given(name: str) -> str | list[str]:
        return f"Read {name}" if as_string else ["Read", name]

    assert with_keys(**{"allowed-tools": given("B" * MAX_ITEM_CHARS)}).problems == ()
    assert errors(with_keys(**{"allowed-tools": given("B" * (MAX_ITEM_CHARS + 1))})) == ["item_too_long"]


def test_a_repeated_allowed_tool_is_a_duplicate_item() -> None:
    assert errors(with_keys(**{"allowed-tools": ["Read", "Read"]})) == ["duplicate_item"]
    assert errors(with_keys(**{"allowed-tools": "Read Bash Read"})) == ["duplicate_item"]


def test_metadata_holds_at_most_64_entries() -> None:
    entries = {f"k{n}": "v" for n in range(MAX_METADATA_ENTRIES)}
    assert with_keys(metadata=entries).problems == ()
    parsed = with_keys(metadata={**entries, "one-more": "v"})
    assert errors(parsed) == ["too_many_items"]
    assert parsed.problems[0].message == "metadata holds 65 entries, more than 64"


def test_a_metadata_value_of_1025_characters_or_a_key_of_201_is_too_long() -> None:
    assert with_keys(metadata={"author": "a" * MAX_METADATA_VALUE_CHARS}).problems == ()
    parsed = with_keys(metadata={"author": "a" * (MAX_METADATA_VALUE_CHARS + 1)})
    assert errors(parsed) == ["item_too_long"]
    assert "1025 characters, more than 1024" in parsed.problems[0].message
    assert with_keys(metadata={"k" * MAX_ITEM_CHARS: "v"}).problems == ()
    assert errors(with_keys(metadata={"k" * (MAX_ITEM_CHARS + 1): "v"})) == ["item_too_long"]


def test_a_list_inside_metadata_is_bounded_like_every_list() -> None:
    at_edge = with_keys(metadata={"authors": [f"a{n}" for n in range(MAX_LIST_ITEMS)]})
    assert errors(at_edge) == [] and warnings(at_edge) == ["metadata_not_string"]
    parsed = with_keys(metadata={"authors": [f"a{n}" for n in range(MAX_LIST_ITEMS + 1)]})
    assert errors(parsed) == ["too_many_items"]
    assert errors(with_keys(metadata={"authors": ["a" * (MAX_ITEM_CHARS + 1)]})) == ["item_too_long"]


def test_an_alias_bomb_in_allowed_tools_is_refused_by_its_count() -> None:
    uses = ", ".join(["*t"] * 11_000)
    parsed = parse(f'name: demo\ndescription: D.\nallowed-tools: [&t "{"B" * 20_000}", {uses}]\n')
    assert "too_many_items" in errors(parsed) and parsed.metadata is None


def test_the_frontmatter_as_written_never_costs_more_than_its_ceiling() -> None:
    # A vendor key of 30 aliases to 30,000 characters beside 300,000 written out: about
    # 1.2 million once expanded, under four times what is written but over the ceiling.
    uses = ", ".join(["*v"] * 30)
    vendor = f'x-vendor-notes: [&v "{"v" * 30_000}", {uses}]\nx-vendor-filler: "{"f" * 300_000}"\n'
    front = f"name: demo\ndescription: D.\n{vendor}"
    expanded = 31 * 30_001 + 300_001
    assert MAX_FRONTMATTER_COST < expanded < 4 * len(front)
    assert errors(parse(front)) == ["frontmatter_too_large"]

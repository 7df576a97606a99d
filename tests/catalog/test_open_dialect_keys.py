"""The open dialect's keys: vendor keys are warnings served as written, a near miss of a known
key is an error with a suggestion (docs/reference.md#skill-format)."""

import itertools
import string

import pytest

from catalog.open_dialect import OPEN_KEYS
from tests.catalog.open_dialect_support import errors, parse, warnings, with_keys

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

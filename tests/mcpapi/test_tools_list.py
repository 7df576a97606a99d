"""skills_list over /mcp, against skills published from real repositories: order, pages, the
tags filter, cursors, and the revision a call names or is refused."""

import base64
import json

import pytest

from catalog.publishing import publish
from tests.mcpapi.tools_support import ARGUMENTS, TOOLS, ids
from tests.support.mcp import McpClient, Published, publish_head
from tests.support.repos import DEFAULT_CONFIG, config_with_sections
from tests.support.standard import add_standard_skills

pytestmark = pytest.mark.django_db


LIST_MAX = DEFAULT_CONFIG["pagination"]["max_limit"]


# --- skills_list --------------------------------------------------------------------------


def test_list_is_ordered_by_id_with_metadata(mcp: McpClient, standard: Published) -> None:
    result = mcp.ok("skills_list")
    assert ids(result["skills"]) == ["alpha", "beta", "gamma"]
    assert result["next_cursor"] is None
    alpha = result["skills"][0]
    assert alpha == {
        "id": "alpha",
        "name": "Alpha",
        "description": "Review pull requests carefully.",
        "version": "1.0.0",
        "tags": ["review", "docs"],
        "keywords": ["diff"],
        "requires": [],
        "required_zdr": False,
        "path": "skills/alpha",
        "content_hash": alpha["content_hash"],
    }
    assert len(alpha["content_hash"]) == 64


def test_list_pages_follow_next_cursor_to_a_null_last_page(mcp: McpClient, standard: Published) -> None:
    first = mcp.ok("skills_list", limit=2)
    assert ids(first["skills"]) == ["alpha", "beta"]
    assert isinstance(first["next_cursor"], str)
    last = mcp.ok("skills_list", limit=2, cursor=first["next_cursor"])
    assert ids(last["skills"]) == ["gamma"]
    assert last["next_cursor"] is None


def test_a_page_that_ends_exactly_at_the_end_has_no_next_cursor(mcp: McpClient, standard: Published) -> None:
    assert mcp.ok("skills_list", limit=3)["next_cursor"] is None


def test_the_page_size_may_change_between_pages(mcp: McpClient, standard: Published) -> None:
    first = mcp.ok("skills_list", limit=1)
    rest = mcp.ok("skills_list", limit=5, cursor=first["next_cursor"])
    assert ids(rest["skills"]) == ["beta", "gamma"]


def test_list_defaults_to_the_configured_page_size(mcp: McpClient, make_repo) -> None:
    repo = make_repo(config_with_sections(pagination={"default_limit": 2, "max_limit": 3}))
    add_standard_skills(repo)
    publish_head(repo)
    assert len(mcp.ok("skills_list")["skills"]) == 2


@pytest.mark.parametrize(
    ("limit", "rule"), [(0, "at least 1"), (-1, "at least 1"), (LIST_MAX + 1, f"at most {LIST_MAX}")]
)
def test_list_limit_out_of_range_is_an_invalid_argument_error(
    mcp: McpClient, standard: Published, limit: int, rule: str
) -> None:
    assert f"'limit' must be {rule}" in mcp.invalid_argument("skills_list", limit=limit)


def test_list_limit_bounds_are_inclusive(mcp: McpClient, standard: Published) -> None:
    assert len(mcp.ok("skills_list", limit=1)["skills"]) == 1
    assert len(mcp.ok("skills_list", limit=LIST_MAX)["skills"]) == 3


def test_the_maximum_limit_is_the_published_configs(mcp: McpClient, make_repo) -> None:
    repo = make_repo(config_with_sections(pagination={"default_limit": 2, "max_limit": 2}))
    add_standard_skills(repo)
    publish_head(repo)
    assert "'limit' must be at most 2" in mcp.invalid_argument("skills_list", limit=3)
    assert len(mcp.ok("skills_list", limit=2)["skills"]) == 2


def test_the_tags_filter_keeps_skills_carrying_every_tag(mcp: McpClient, standard: Published) -> None:
    assert ids(mcp.ok("skills_list", tags=["git"])["skills"]) == ["beta", "gamma"]
    assert ids(mcp.ok("skills_list", tags=["git", "release"])["skills"]) == ["gamma"]
    assert ids(mcp.ok("skills_list", tags=["git", "review"])["skills"]) == []
    assert ids(mcp.ok("skills_list", tags=[])["skills"]) == ["alpha", "beta", "gamma"]


def test_the_tags_filter_is_case_insensitive(mcp: McpClient, standard: Published) -> None:
    assert ids(mcp.ok("skills_list", tags=["GIT", "Release"])["skills"]) == ["gamma"]


def test_a_list_cursor_is_bound_to_its_tags(mcp: McpClient, standard: Published) -> None:
    first = mcp.ok("skills_list", tags=["git"], limit=1)
    assert ids(mcp.ok("skills_list", tags=["GIT"], limit=1, cursor=first["next_cursor"])["skills"]) == [
        "gamma"
    ]
    mcp.fails("skills_list", "INVALID_CURSOR", tags=["release"], limit=1, cursor=first["next_cursor"])
    mcp.fails("skills_list", "INVALID_CURSOR", limit=1, cursor=first["next_cursor"])


# --- cursors and revisions ----------------------------------------------------------------


def tampered(cursor: str) -> list[str]:
    flipped = cursor[:-1] + ("A" if cursor[-1] != "A" else "B")
    payload, _, signature = cursor.rpartition(":")
    forged_payload = base64.urlsafe_b64encode(json.dumps(["x" * 40, "q", 0]).encode()).decode().rstrip("=")
    return [flipped, f"{forged_payload}:{signature}", payload, "", "not-a-cursor", "a" * 5000, cursor + "x"]


def test_a_tampered_cursor_is_invalid_cursor(mcp: McpClient, standard: Published) -> None:
    cursor = mcp.ok("skills_list", limit=1)["next_cursor"]
    for bad in tampered(cursor):
        result = mcp.fails("skills_list", "INVALID_CURSOR", limit=1, cursor=bad)
        assert "active_sha" not in result["error"]


def test_a_cursor_of_another_tool_is_invalid_cursor(mcp: McpClient, standard: Published) -> None:
    cursor = mcp.ok("skills_list", limit=1)["next_cursor"]
    mcp.fails("skills_search", "INVALID_CURSOR", query="review", cursor=cursor)
    mcp.fails("skills_get_file", "INVALID_CURSOR", id="alpha", path="references/guide.md", cursor=cursor)


def test_a_cursor_signed_with_another_key_is_invalid_cursor(
    mcp: McpClient, standard: Published, settings
) -> None:
    own_key = settings.SECRET_KEY
    settings.SECRET_KEY = "another-deployment-key"
    foreign = mcp.ok("skills_list", limit=1)["next_cursor"]
    settings.SECRET_KEY = own_key
    mcp.fails("skills_list", "INVALID_CURSOR", limit=1, cursor=foreign)


def test_a_cursor_from_an_older_revision_is_revision_unavailable(mcp: McpClient, standard: Published) -> None:
    cursor = mcp.ok("skills_list", limit=1)["next_cursor"]
    standard.repo.add_skill("delta", body="Delta.\n")
    new_sha = publish_head(standard.repo)
    result = mcp.fails("skills_list", "REVISION_UNAVAILABLE", limit=1, cursor=cursor)
    assert result["error"]["active_sha"] == new_sha
    assert result["registry_sha"] == new_sha


def test_the_full_active_sha_and_unique_prefixes_are_the_active_revision(
    mcp: McpClient, standard: Published
) -> None:
    for revision in (standard.sha, standard.sha[:7], standard.sha[:12], standard.sha.upper()):
        assert mcp.ok("skills_get", id="alpha", revision=revision)["registry_sha"] == standard.sha


@pytest.mark.parametrize(
    "revision",
    ["", "HEAD", "main", "zzzzzzz", "0" * 40, "g" * 40, " {sha}", "{sha} ", "{sha}0", "{short6}"],
)
def test_any_other_revision_is_revision_unavailable_naming_the_active_sha(
    mcp: McpClient, standard: Published, revision: str
) -> None:
    revision = revision.format(sha=standard.sha, short6=standard.sha[:6])
    for tool in TOOLS:
        result = mcp.fails(tool, "REVISION_UNAVAILABLE", **ARGUMENTS[tool], revision=revision)
        assert result["error"]["active_sha"] == standard.sha
        assert standard.sha in result["error"]["message"]


def test_an_older_published_revision_is_revision_unavailable(mcp: McpClient, standard: Published) -> None:
    standard.repo.add_skill("delta", body="Delta.\n")
    new_sha = publish_head(standard.repo)
    result = mcp.fails("skills_list", "REVISION_UNAVAILABLE", revision=standard.sha)
    assert result["error"]["active_sha"] == new_sha
    assert ids(mcp.ok("skills_list", revision=new_sha)["skills"]) == ["alpha", "beta", "delta", "gamma"]


def test_a_rollback_makes_the_older_revision_the_active_one(mcp: McpClient, standard: Published) -> None:
    standard.repo.add_skill("delta", body="Delta.\n")
    publish_head(standard.repo)
    publish(standard.repo.root, standard.sha, rollback=True)
    assert ids(mcp.ok("skills_list", revision=standard.sha)["skills"]) == ["alpha", "beta", "gamma"]

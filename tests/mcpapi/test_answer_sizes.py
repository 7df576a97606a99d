"""Every answer a model reads fits what a real client hands it whole (docs/reference.md#answer-sizes):
mcpapi.answer_size.ANSWER_BYTES, 25,000 estimated tokens, measured on the JSON the client
hands its model (the text content, which is structuredContent serialized)."""

from collections.abc import Callable
from typing import Any

import pytest

from catalog.fields import MAX_ITEM_CHARS, MAX_LIST_ITEMS
from mcpapi.answer_size import ANSWER_BYTES, DEFAULT_PAGE_CHARS, estimated_tokens
from mcpapi.jsonrpc import dumps_text
from tests.support.maximal import escape_heavy, huge_skill, maximal_skills
from tests.support.mcp import McpClient, ModernMcp, publish_head
from tests.support.repos import DEFAULT_CONFIG, SkillRepo

pytestmark = pytest.mark.django_db

PAGINATION = DEFAULT_CONFIG["pagination"]
SEARCH = DEFAULT_CONFIG["search"]
QUERY = "export report ledger"


def answer_bytes(result: dict[str, Any]) -> int:
    """The UTF-8 bytes of what the model reads of one tool result."""
    [content] = result["content"]
    return len(content["text"].encode())


def fits(result: dict[str, Any]) -> bool:
    [content] = result["content"]
    return answer_bytes(result) <= ANSWER_BYTES and estimated_tokens(content["text"]) <= 25_000


@pytest.fixture
def maximal(make_repo: Callable[..., SkillRepo]) -> list[str]:
    """More skills than the largest page, each with every bounded field at its bound; their ids."""
    repo = make_repo()
    written = maximal_skills(PAGINATION["max_limit"] + 10)
    for path, text in written.items():
        repo.write(path, text)
    publish_head(repo)
    return sorted(path.split("/")[1] for path in written)


def test_the_budget_is_claude_codes_default_output_cap_at_three_bytes_a_token() -> None:
    assert ANSWER_BYTES == 25_000 * 3
    assert estimated_tokens("x" * 3 * 1000) == 1000
    assert estimated_tokens("技" * 1000) == 1000  # three UTF-8 bytes each


def test_default_pages_of_maximal_skills_are_full_and_shown_inline(
    mcp: McpClient, maximal: list[str]
) -> None:
    listed = mcp.call("skills_list")
    assert len(listed["structuredContent"]["skills"]) == PAGINATION["default_limit"]
    found = mcp.call("skills_search", query=QUERY)
    assert len(found["structuredContent"]["results"]) == SEARCH["default_limit"]
    for result in (listed, found):
        assert fits(result)
        assert len(result["content"][0]["text"]) <= DEFAULT_PAGE_CHARS


def test_a_search_page_at_max_limit_of_maximal_skills_is_full_and_fits(
    mcp: McpClient, maximal: list[str]
) -> None:
    found = mcp.call("skills_search", query=QUERY, limit=SEARCH["max_limit"])
    assert len(found["structuredContent"]["results"]) == SEARCH["max_limit"]
    assert fits(found)


def test_a_list_page_at_max_limit_ends_before_the_budget_and_its_cursor_carries_on(
    mcp: McpClient, maximal: list[str]
) -> None:
    first = mcp.call("skills_list", limit=PAGINATION["max_limit"])
    assert fits(first)
    page = first["structuredContent"]
    assert 0 < len(page["skills"]) < PAGINATION["max_limit"]  # maximal skills fill it early
    seen = [skill["id"] for skill in page["skills"]]
    cursor = page["next_cursor"]
    while cursor is not None:
        result = mcp.call("skills_list", limit=PAGINATION["max_limit"], cursor=cursor)
        assert fits(result)
        seen += [skill["id"] for skill in result["structuredContent"]["skills"]]
        cursor = result["structuredContent"]["next_cursor"]
    assert seen == maximal


def test_skills_with_huge_label_lists_still_give_pages_that_fit(
    mcp: McpClient, make_repo: Callable[..., SkillRepo]
) -> None:
    """Lists at their bounds make a skill's metadata about 27 KB: the answer budget, not the
    page's limit, keeps a page whole."""
    repo = make_repo()
    for number in range(12):
        repo.add_skill(f"labelled-{number:02d}", description="Export the report.", **_lists_at_their_bounds())
    publish_head(repo)
    ids: list[str] = []
    cursor = None
    while True:
        arguments: dict[str, Any] = {"limit": PAGINATION["max_limit"]}
        if cursor is not None:
            arguments["cursor"] = cursor
        result = mcp.call("skills_list", **arguments)
        assert fits(result)
        ids += [skill["id"] for skill in result["structuredContent"]["skills"]]
        cursor = result["structuredContent"]["next_cursor"]
        if cursor is None:
            break
    assert ids == [f"labelled-{number:02d}" for number in range(12)]
    found = mcp.call("skills_search", query="export", limit=SEARCH["max_limit"])
    assert fits(found)
    assert 0 < len(found["structuredContent"]["results"]) < 12
    assert found["structuredContent"]["next_cursor"] is not None


def _lists_at_their_bounds() -> dict[str, list[str]]:
    def items(word: str) -> list[str]:
        return [f"{word} {n} ".ljust(MAX_ITEM_CHARS, "x") for n in range(MAX_LIST_ITEMS)]

    return {"keywords": items("keyword"), "requires": items("requirement")}


def test_one_skill_with_every_list_at_its_bound_fits_one_answer_with_room_to_spare(
    mcp: McpClient, make_repo: Callable[..., SkillRepo]
) -> None:
    """The list bounds (docs/reference.md#limits) keep any one skill's metadata well under
    the budget, so a page always holds at least one skill whole."""
    repo = make_repo()
    tags = [f"tag-{n:02d}-".ljust(60, "t") for n in range(MAX_LIST_ITEMS)]
    repo.add_skill("giant", description="d" * 1024, tags=tags, **_lists_at_their_bounds())
    repo.add_skill("small")
    publish_head(repo)
    result = mcp.call("skills_list")
    assert [skill["id"] for skill in result["structuredContent"]["skills"]] == ["giant", "small"]
    assert len(dumps_text(result["structuredContent"]).encode()) < ANSWER_BYTES / 2


def test_a_file_page_at_file_page_bytes_fits_even_when_json_escapes_most_of_it(
    mcp: McpClient, make_repo: Callable[..., SkillRepo]
) -> None:
    repo = make_repo()
    page_bytes = DEFAULT_CONFIG["file_page_bytes"]
    repo.add_skill("escapes", files={"references/data.txt": escape_heavy(3 * page_bytes)})
    publish_head(repo)
    result = mcp.call("skills_get_file", id="escapes", path="references/data.txt")
    assert len(result["structuredContent"]["text"].encode()) == page_bytes
    assert fits(result)


def test_every_page_of_a_huge_skills_files_fits(mcp: McpClient, make_repo: Callable[..., SkillRepo]) -> None:
    repo = make_repo()
    limits = DEFAULT_CONFIG["limits"]
    written = huge_skill(limits["max_skill_md_bytes"], 2 * DEFAULT_CONFIG["file_page_bytes"])
    for path, text in written.items():
        repo.write(path, text)
    publish_head(repo)
    for entry in mcp.ok("skills_get", id="huge-skill")["files"]:
        cursor = None
        while True:
            arguments: dict[str, Any] = {"id": "huge-skill", "path": entry["path"]}
            if cursor is not None:
                arguments["cursor"] = cursor
            result = mcp.call("skills_get_file", **arguments)
            assert fits(result), entry["path"]
            cursor = result["structuredContent"]["next_cursor"]
            if cursor is None:
                break


def test_a_skills_list_page_of_the_extension_fits(make_repo: Callable[..., SkillRepo]) -> None:
    repo = make_repo()
    for number in range(PAGINATION["default_limit"]):
        skill_id = f"native-{number:02d}"
        repo.add_skill(skill_id, name=skill_id, **_lists_at_their_bounds())
    publish_head(repo)
    result = ModernMcp().result("skills/list", {})
    assert len(dumps_text(result).encode()) <= ANSWER_BYTES
    assert 0 < len(result["skills"]) < PAGINATION["default_limit"]
    assert "nextCursor" in result


def test_a_file_of_control_characters_comes_in_shorter_pages_that_fit_and_join_to_the_file(
    mcp: McpClient, make_repo: Callable[..., SkillRepo]
) -> None:
    """JSON writes each of them as six characters: a page of file_page_bytes would not fit."""
    repo = make_repo()
    data = ("\x01\x02é" * DEFAULT_CONFIG["file_page_bytes"])[: 2 * DEFAULT_CONFIG["file_page_bytes"]]
    repo.add_skill("controls", files={"references/controls.txt": data})
    publish_head(repo)
    pages: list[str] = []
    cursor = None
    while True:
        arguments: dict[str, Any] = {"id": "controls", "path": "references/controls.txt"}
        if cursor is not None:
            arguments["cursor"] = cursor
        result = mcp.call("skills_get_file", **arguments)
        assert fits(result)
        pages.append(result["structuredContent"]["text"])
        cursor = result["structuredContent"]["next_cursor"]
        if cursor is None:
            break
    assert "".join(pages) == data
    assert len(pages[0].encode()) < DEFAULT_CONFIG["file_page_bytes"]

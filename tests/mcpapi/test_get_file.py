"""skills_get_file: path rules, and pages cut on UTF-8 character boundaries."""

import hashlib

import pytest

from mcpapi.tools import is_well_formed_path, page_end
from tests.support.mcp import McpClient, Published, publish_head
from tests.support.repos import config_with_sections
from tests.support.standard import GUIDE, SCRIPT

pytestmark = pytest.mark.django_db

# 1-, 2-, 3- and 4-byte characters, so that page boundaries land inside every kind.
MIXED = "a é € 🎉 z\n" * 7 + "end: ✓\n"


def read_all(mcp: McpClient, skill_id: str, path: str) -> list[dict]:
    pages, cursor = [], None
    while True:
        page = mcp.ok("skills_get_file", id=skill_id, path=path, cursor=cursor)
        pages.append(page)
        cursor = page["next_cursor"]
        if cursor is None:
            return pages


@pytest.fixture
def small_pages(make_repo) -> Published:
    """A skill whose files are read 5 bytes at a time."""
    repo = make_repo(config_with_sections(file_page_bytes=5))
    repo.add_skill(
        "paged",
        files={"references/mixed.md": MIXED, "references/empty.md": "", "scripts/tool.py": "print('ok')\n"},
    )
    return Published(repo, publish_head(repo))


def test_a_small_file_is_one_page_with_its_manifest_fields(mcp: McpClient, standard: Published) -> None:
    page = mcp.ok("skills_get_file", id="alpha", path="references/guide.md")
    assert page["id"] == "alpha"
    assert page["path"] == "references/guide.md"
    assert page["text"] == GUIDE
    assert page["offset"] == 0
    assert page["size"] == len(GUIDE.encode())
    assert page["sha256"] == hashlib.sha256(GUIDE.encode()).hexdigest()
    assert page["media_type"].startswith("text/")
    assert page["executable"] is False
    assert page["next_cursor"] is None


def test_files_under_scripts_are_served_as_text_marked_executable(
    mcp: McpClient, standard: Published
) -> None:
    page = mcp.ok("skills_get_file", id="alpha", path="scripts/run.sh")
    assert page["text"] == SCRIPT
    assert page["executable"] is True


def test_pages_join_to_the_file_exactly_and_never_split_a_character(
    mcp: McpClient, small_pages: Published
) -> None:
    pages = read_all(mcp, "paged", "references/mixed.md")
    data = MIXED.encode()
    assert "".join(page["text"] for page in pages) == MIXED
    assert len(pages) > len(data) // 5
    offset = 0
    for page in pages:
        assert page["offset"] == offset
        assert page["size"] == len(data)
        assert page["sha256"] == hashlib.sha256(data).hexdigest()
        encoded = page["text"].encode()
        assert 0 < len(encoded) <= 5
        assert data[offset : offset + len(encoded)] == encoded
        offset += len(encoded)
    assert offset == len(data)
    # Some page had to stop short of 5 bytes to keep a character whole.
    assert any(len(page["text"].encode()) < 5 for page in pages[:-1])


def test_a_four_byte_character_fits_the_smallest_page(mcp: McpClient, make_repo) -> None:
    repo = make_repo(config_with_sections(file_page_bytes=4))
    text = "🎉🎉x🎉"
    repo.add_skill("emoji", files={"references/e.md": text})
    publish_head(repo)
    assert [page["text"] for page in read_all(mcp, "emoji", "references/e.md")] == ["🎉", "🎉", "x", "🎉"]


def test_an_empty_file_is_one_empty_page(mcp: McpClient, small_pages: Published) -> None:
    page = mcp.ok("skills_get_file", id="paged", path="references/empty.md")
    assert (page["text"], page["size"], page["offset"], page["next_cursor"]) == ("", 0, 0, None)


def test_a_file_cursor_is_bound_to_its_file(mcp: McpClient, small_pages: Published) -> None:
    cursor = mcp.ok("skills_get_file", id="paged", path="references/mixed.md")["next_cursor"]
    mcp.fails("skills_get_file", "INVALID_CURSOR", id="paged", path="scripts/tool.py", cursor=cursor)
    mcp.fails("skills_list", "INVALID_CURSOR", cursor=cursor)


def test_a_file_cursor_from_an_older_revision_is_revision_unavailable(
    mcp: McpClient, small_pages: Published
) -> None:
    cursor = mcp.ok("skills_get_file", id="paged", path="references/mixed.md")["next_cursor"]
    small_pages.repo.add_skill("other")
    new_sha = publish_head(small_pages.repo)
    result = mcp.fails(
        "skills_get_file", "REVISION_UNAVAILABLE", id="paged", path="references/mixed.md", cursor=cursor
    )
    assert result["error"]["active_sha"] == new_sha


@pytest.mark.parametrize(
    "path",
    [
        "",
        "../x",
        "..",
        ".",
        "./references/guide.md",
        "references/../references/guide.md",
        "references/./guide.md",
        "references/..",
        "/etc/passwd",
        "/references/guide.md",
        "%2e%2e/x",
        "references%2fguide.md",
        "references/guide.md%00",
        "a\\b",
        "references\\guide.md",
        "references/guide.md\0",
        "\0",
        "references//guide.md",
        "references/guide.md/",
    ],
)
def test_malformed_paths_are_invalid_path(mcp: McpClient, standard: Published, path: str) -> None:
    result = mcp.fails("skills_get_file", "INVALID_PATH", id="alpha", path=path)
    assert result["registry_sha"] == standard.sha


@pytest.mark.parametrize(
    "path",
    [
        "SKILL.md",
        "references/missing.md",
        "References/guide.md",
        "references/guide.md ",
        " references/guide.md",
        "references",
        "guide.md",
    ],
)
def test_well_formed_paths_the_skill_does_not_list_are_file_not_found(
    mcp: McpClient, standard: Published, path: str
) -> None:
    mcp.fails("skills_get_file", "FILE_NOT_FOUND", id="alpha", path=path)


def test_a_file_of_another_skill_is_not_found(mcp: McpClient, standard: Published) -> None:
    mcp.fails("skills_get_file", "FILE_NOT_FOUND", id="beta", path="references/guide.md")


def test_an_unknown_skill_is_skill_not_found(mcp: McpClient, standard: Published) -> None:
    mcp.fails("skills_get_file", "SKILL_NOT_FOUND", id="nope", path="references/guide.md")


def test_path_rules_as_a_function() -> None:
    assert is_well_formed_path("references/api/auth.md")
    assert is_well_formed_path("a..b/c.md")
    assert not is_well_formed_path("references/../x")
    assert not is_well_formed_path("references//guide.md")
    assert not is_well_formed_path("references/guide.md/")


def test_page_end_backs_off_to_a_character_boundary() -> None:
    data = "a€b".encode()  # 61 e2 82 ac 62
    assert page_end(data, 0, 2) == 1
    assert page_end(data, 1, 2) == 1 + 3  # a page never holds less than one character
    assert page_end(data, 1, 3) == 4
    assert page_end(data, 4, 3) == 5

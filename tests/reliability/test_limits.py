"""Every limit of registry.config.json at its edge (docs/reference.md#limits: limits are inclusive). For
each one, a commit exactly at the limit publishes (or a request exactly at it works) and one
more is refused, with the problem named. Small limits keep it fast.
"""

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from catalog.fields import MAX_ITEM_CHARS, MAX_LIST_ITEMS, MAX_METADATA_ENTRIES, MAX_METADATA_VALUE_CHARS
from catalog.publishing import PublishError, publish
from catalog.trees import GitTree, open_repo, resolve_commit
from catalog.validation import validate_tree
from tests.support.mcp import McpClient
from tests.support.repos import DEFAULT_CONFIG, SkillRepo
from tests.support.skillmd import render_skill_md, skill_md

pytestmark = [pytest.mark.reliability, pytest.mark.django_db]

LIMITS = {
    "max_skills": 3,
    "max_files_per_skill": 2,
    "max_skill_md_bytes": 600,
    "max_file_bytes": 100,
    "max_skill_total_bytes": 750,
}
CONFIG = copy.deepcopy(DEFAULT_CONFIG)
CONFIG["limits"] = dict(LIMITS)
CONFIG["pagination"] = {"default_limit": 2, "max_limit": 3}
CONFIG["search"] = {"default_limit": 1, "max_limit": 2, "excerpt_chars": 40}
CONFIG["file_page_bytes"] = 16


def sized_body(skill_id: str, size: int, files: dict[str, str], **fields: Any) -> str:
    """The body that makes skills/<id>/SKILL.md exactly `size` bytes."""
    head = skill_md(skill_id, "", files=sorted(files) or None, **fields)
    padding = size - len(head.encode()) - 1
    assert padding > 0, "size too small for the frontmatter"
    return "s" * padding + "\n"


def exact_file(size: int) -> str:
    return "f" * (size - 1) + "\n"


@dataclass(frozen=True)
class Edge:
    """A tree builder: `build(repo, over, version)` writes the skills at the limit
    (over=False) or one past it (over=True)."""

    limit: str
    build: Callable[[SkillRepo, bool, str], None]
    problem: tuple[str, str]  # (path, code) of the one problem one past the limit
    config: dict[str, Any] | None = None  # CONFIG unless given


def _many_skills(repo: SkillRepo, over: bool, version: str) -> None:
    for n in range(LIMITS["max_skills"] + (1 if over else 0)):
        repo.add_skill(f"skill-{n}", version=version)


def _many_files(repo: SkillRepo, over: bool, version: str) -> None:
    count = LIMITS["max_files_per_skill"] + (1 if over else 0)
    repo.add_skill(
        "files", files={f"references/f{n}.md": f"file {n}\n" for n in range(count)}, version=version
    )


def _big_skill_md(repo: SkillRepo, over: bool, version: str) -> None:
    size = LIMITS["max_skill_md_bytes"] + (1 if over else 0)
    repo.add_skill("big", body=sized_body("big", size, {}, version=version), version=version)


def _big_file(repo: SkillRepo, over: bool, version: str) -> None:
    files = {"references/big.md": exact_file(LIMITS["max_file_bytes"] + (1 if over else 0))}
    repo.add_skill("big", files=files, version=version)


def _big_total(repo: SkillRepo, over: bool, version: str) -> None:
    files = {"references/a.md": exact_file(100), "references/b.md": exact_file(100)}
    size = LIMITS["max_skill_total_bytes"] - 200 + (1 if over else 0)  # still under max_skill_md_bytes
    assert size <= LIMITS["max_skill_md_bytes"]
    repo.add_skill(
        "total", body=sized_body("total", size, files, version=version), files=files, version=version
    )


EDGES = [
    Edge("max_skills", _many_skills, ("skills", "too_many_skills")),
    Edge("max_files_per_skill", _many_files, ("skills/files/SKILL.md", "too_many_files")),
    Edge("max_skill_md_bytes", _big_skill_md, ("skills/big/SKILL.md", "skill_md_too_large")),
    Edge("max_file_bytes", _big_file, ("skills/big/references/big.md", "file_too_large")),
    Edge("max_skill_total_bytes", _big_total, ("skills/total/SKILL.md", "skill_too_large")),
]


def problems_of(repo: SkillRepo, sha: str) -> set[tuple[str, str]]:
    git_repo = open_repo(repo.root)
    try:
        with GitTree(git_repo, resolve_commit(git_repo, sha)) as tree:
            report = validate_tree(tree)
    finally:
        git_repo.close()
    return {(problem.path.rstrip("/"), problem.code) for problem in report.problems}


def test_the_limits_cover_every_limit_of_the_config() -> None:
    assert {edge.limit for edge in EDGES} == set(DEFAULT_CONFIG["limits"])


def _list_edge(key: str, item: Callable[[int], Any]) -> Callable[[SkillRepo, bool, str], None]:
    def build(repo: SkillRepo, over: bool, version: str) -> None:
        count = MAX_LIST_ITEMS + (1 if over else 0)
        repo.add_skill("lists", version=version, **{key: [item(n) for n in range(count)]})

    return build


def _long_keyword(repo: SkillRepo, over: bool, version: str) -> None:
    repo.add_skill("lists", version=version, keywords=["k" * (MAX_ITEM_CHARS + (1 if over else 0))])


def _open_skill(repo: SkillRepo, version: str, **fields: Any) -> None:
    meta = {"name": "lists", "description": "Open lists.", "version": version, **fields}
    repo.write("skills/lists/SKILL.md", render_skill_md(meta, "Steps.\n"))


def _allowed_tools(repo: SkillRepo, over: bool, version: str) -> None:
    tools = " ".join(f"T{n}" for n in range(MAX_LIST_ITEMS + (1 if over else 0)))
    _open_skill(repo, version, **{"allowed-tools": tools})


def _metadata_entries(repo: SkillRepo, over: bool, version: str) -> None:
    entries = {f"k{n}": "v" for n in range(MAX_METADATA_ENTRIES + (1 if over else 0))}
    _open_skill(repo, version, metadata=entries)


def _metadata_value(repo: SkillRepo, over: bool, version: str) -> None:
    _open_skill(repo, version, metadata={"author": "a" * (MAX_METADATA_VALUE_CHARS + (1 if over else 0))})


# Room in SKILL.md for 64 items: the frontmatter bounds are code's, not the config's.
ROOMY = copy.deepcopy(CONFIG)
ROOMY["limits"].update(max_skill_md_bytes=65536, max_skill_total_bytes=65536)
LIST_MD = ("skills/lists/SKILL.md", "too_many_items")
FRONTMATTER_EDGES = [
    Edge("tags", _list_edge("tags", lambda n: f"tag-{n}"), LIST_MD, ROOMY),
    Edge("keywords", _list_edge("keywords", lambda n: f"keyword {n}"), LIST_MD, ROOMY),
    Edge("requires", _list_edge("requires", lambda n: f"need {n}"), LIST_MD, ROOMY),
    Edge("keyword chars", _long_keyword, ("skills/lists/SKILL.md", "item_too_long"), ROOMY),
    Edge("allowed-tools", _allowed_tools, LIST_MD, ROOMY),
    Edge("metadata entries", _metadata_entries, LIST_MD, ROOMY),
    Edge("metadata value chars", _metadata_value, ("skills/lists/SKILL.md", "item_too_long"), ROOMY),
]


@pytest.mark.parametrize("edge", EDGES + FRONTMATTER_EDGES, ids=[e.limit for e in EDGES + FRONTMATTER_EDGES])
def test_exactly_at_a_limit_publishes_and_one_more_is_refused(edge: Edge, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = SkillRepo(tmp_path / "repo", config=edge.config or CONFIG)
    edge.build(repo, False, "1.0.0")
    at_limit = repo.commit("at the limit")
    assert problems_of(repo, at_limit) == set()
    assert publish(repo.root, at_limit).sha == at_limit

    edge.build(repo, True, "1.1.0")
    over = repo.commit("one past the limit")
    assert problems_of(repo, over) == {edge.problem}
    with pytest.raises(PublishError, match=edge.problem[0]):
        publish(repo.root, over)
    assert publish(repo.root, at_limit).outcome.value == "already_active"


# --- limits of reading -------------------------------------------------------------------


@pytest.fixture
def reading(tmp_path) -> SkillRepo:  # type: ignore[no-untyped-def]
    """Three skills (the most pagination.max_limit returns at once), two files of exactly
    file_page_bytes and one byte more, and a description longer than excerpt_chars."""
    repo = SkillRepo(tmp_path / "repo", config=CONFIG)
    repo.add_skill(
        "alpha",
        files={"references/exact.md": "e" * 15 + "\n", "references/over.md": "o" * 16 + "\n"},
        description="Lattice " + "words " * 20,
    )
    repo.add_skill("beta", description="Lattice beta.")
    repo.add_skill("gamma", description="Lattice gamma.")
    publish(repo.root, repo.commit("reading"))
    return repo


def test_list_and_search_limits_at_the_edge(reading: SkillRepo, mcp: McpClient) -> None:
    listed = mcp.call("skills_list", limit=3)["structuredContent"]
    assert [skill["id"] for skill in listed["skills"]] == ["alpha", "beta", "gamma"]
    assert listed["next_cursor"] is None
    default = mcp.call("skills_list")["structuredContent"]
    assert len(default["skills"]) == 2 and default["next_cursor"] is not None
    for bad in (4, 0):
        refused = mcp.call("skills_list", limit=bad)
        assert refused["isError"] is True, refused
        assert refused["structuredContent"]["error"]["code"] == "INVALID_ARGUMENT", refused

    found = mcp.call("skills_search", query="lattice", limit=2)["structuredContent"]
    assert len(found["results"]) == 2 and found["next_cursor"] is not None
    rest = mcp.call("skills_search", query="lattice", limit=2, cursor=found["next_cursor"])
    rest = rest["structuredContent"]
    hits = {hit["id"]: hit for hit in found["results"] + rest["results"]}
    assert sorted(hits) == ["alpha", "beta", "gamma"] and rest["next_cursor"] is None
    assert all(len(hit["excerpt"]) <= 40 for hit in hits.values())
    assert len(hits["alpha"]["excerpt"]) == 40  # alpha's description is longer: cut at the limit
    refused = mcp.call("skills_search", query="lattice", limit=3)
    assert refused["isError"] is True, refused
    assert refused["structuredContent"]["error"]["code"] == "INVALID_ARGUMENT", refused


def read_pages(mcp: McpClient, path: str) -> list[str]:
    pages, cursor = [], None
    while True:
        arguments: dict[str, Any] = {"id": "alpha", "path": path}
        if cursor:
            arguments["cursor"] = cursor
        page = mcp.call("skills_get_file", **arguments)["structuredContent"]
        pages.append(page["text"])
        cursor = page["next_cursor"]
        if cursor is None:
            return pages


def test_a_file_of_exactly_file_page_bytes_is_one_page_and_one_more_byte_two(
    reading: SkillRepo, mcp: McpClient
) -> None:
    assert read_pages(mcp, "references/exact.md") == ["e" * 15 + "\n"]
    assert read_pages(mcp, "references/over.md") == ["o" * 16, "\n"]


def test_resources_list_pages_hold_exactly_max_limit(reading: SkillRepo, mcp: McpClient) -> None:
    # 3 skills: alpha (SKILL.md + 2 files), beta, gamma = 5 resources, pages of max_limit = 3.
    first = mcp.rpc("resources/list")["result"]
    assert len(first["resources"]) == 3 and first["nextCursor"]
    second = mcp.rpc("resources/list", {"cursor": first["nextCursor"]})["result"]
    assert len(second["resources"]) == 2 and "nextCursor" not in second
    uris = [item["uri"] for item in first["resources"] + second["resources"]]
    assert len(set(uris)) == 5


def test_the_test_config_is_a_valid_registry_config() -> None:
    from catalog.config import parse_config

    parsed = parse_config(json.dumps(CONFIG).encode())
    assert parsed.limits.max_skills == LIMITS["max_skills"]
    assert parsed.file_page_bytes == 16

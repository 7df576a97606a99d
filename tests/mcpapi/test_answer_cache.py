"""Answers encoded once and served again (mcpapi.answer_cache, keyed by mcpapi.protocol.answer_key):
a kept answer is the very bytes a fresh encode gives, with each request's own id; it is kept per
snapshot, clearance and era; a publish makes new answers; the bounds evict at their edge."""

import json
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from mcpapi import answer_cache
from mcpapi.answer_cache import AnswerCache, size_of
from mcpapi.protocol import arguments_key, dispatcher
from tests.support.mcp import META, MODERN, McpClient, Published, publish_head
from tests.support.reference_md import limit
from tests.support.repos import SkillRepo
from tests.support.standard import ZDR_ID, add_standard_skills
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

pytestmark = pytest.mark.django_db

NATIVE = "native-one"


@pytest.fixture
def published(make_repo: Callable[..., SkillRepo]) -> Published:
    """The standard skills, and a native skill for the skills extension."""
    repo = make_repo()
    add_standard_skills(repo)
    repo.add_skill(
        NATIVE, name=NATIVE, description="A native skill.", files={"references/notes.md": "# Notes\n"}
    )
    return Published(repo, publish_head(repo))


@pytest.fixture
def no_cache() -> Iterator[Callable[[], None]]:
    """Turn the cache off for a while (as before it existed), restored after the test."""
    kept = dispatcher.answers

    def off() -> None:
        dispatcher.answers = None

    yield off
    dispatcher.answers = kept


def _requests(published: Published) -> list[dict[str, Any]]:
    """One request of every kept operation, ZDR and files included."""
    calls = [
        ("skills_list", {}),
        ("skills_list", {"limit": 2}),
        ("skills_list", {"tags": ["git"]}),
        ("skills_get", {"id": "alpha"}),
        ("skills_get", {"id": ZDR_ID}),
        ("skills_get", {"id": "alpha", "revision": published.sha}),
        ("skills_get_file", {"id": "alpha", "path": "references/guide.md"}),
        ("skills_search", {"query": "review"}),
        ("skills_search", {"query": "review", "limit": 1}),
        ("skills_search", {"query": "review", "tags": ["git"], "revision": published.sha}),
        ("skills_search", {"query": "incident"}),  # the ZDR skill's: found only when cleared
        ("skills_search", {"query": "review", "revision": "0" * 40}),  # REVISION_UNAVAILABLE
    ]
    requests = [{"method": "tools/call", "params": {"name": name, "arguments": args}} for name, args in calls]
    requests += [
        {"method": "resources/list", "params": {}},
        {"method": "resources/read", "params": {"uri": "skill://alpha/SKILL.md"}},
        {"method": "resources/read", "params": {"uri": "skill://alpha/references/guide.md"}},
        {"method": "skills/list", "params": {}},
        {"method": "skills/get", "params": {"uri": f"skill://{NATIVE}/SKILL.md"}},
    ]
    return requests


def _post(client: McpClient, request: dict[str, Any], request_id: Any, *, modern: bool, token: str) -> bytes:
    params = dict(request["params"])
    headers: dict[str, str] = {}
    if modern:
        params["_meta"] = META
        headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": request["method"]}
        name = params.get("uri", params.get("name"))
        if isinstance(name, str):
            headers["Mcp-Name"] = name
    message = {"jsonrpc": "2.0", "id": request_id, "method": request["method"], "params": params}
    response = client.post(message, token=token, **headers)
    assert response.status_code == 200, response.content
    return response.content


@pytest.mark.parametrize("modern", [False, True], ids=["legacy", "modern"])
@pytest.mark.parametrize("token", [READ_TOKEN, ZDR_TOKEN], ids=["uncleared", "cleared"])
def test_a_kept_answer_is_the_bytes_a_fresh_encode_gives_with_each_requests_own_id(
    published: Published, mcp: McpClient, no_cache: Callable[[], None], modern: bool, token: str
) -> None:
    requests = _requests(published)
    first = [_post(mcp, request, 1, modern=modern, token=token) for request in requests]
    assert len(answer_cache.answers) == len(requests)  # every one of them kept
    again = [_post(mcp, request, "again", modern=modern, token=token) for request in requests]
    no_cache()
    fresh = [_post(mcp, request, "again", modern=modern, token=token) for request in requests]
    for request, one, kept, encoded in zip(requests, first, again, fresh, strict=True):
        assert kept == encoded, request
        assert json.loads(one)["id"] == 1 and json.loads(kept)["id"] == "again"
        assert one.replace(b'"id":1,', b'"id":"again",', 1) == kept, request


def test_a_cleared_callers_kept_answer_is_never_served_to_an_uncleared_one(
    published: Published, mcp: McpClient
) -> None:
    cleared = mcp.call("skills_get", id=ZDR_ID, _token=ZDR_TOKEN)
    assert cleared["isError"] is False
    listed = mcp.call("skills_list", _token=ZDR_TOKEN)["structuredContent"]["skills"]
    assert ZDR_ID in [skill["id"] for skill in listed]
    read = mcp.result("resources/read", {"uri": f"skill://{ZDR_ID}/SKILL.md"}, token=ZDR_TOKEN)
    assert read["contents"]

    assert mcp.fails("skills_get", "SKILL_NOT_FOUND", id=ZDR_ID)
    listed = mcp.ok("skills_list")["skills"]
    assert ZDR_ID not in [skill["id"] for skill in listed]
    assert mcp.error("resources/read", {"uri": f"skill://{ZDR_ID}/SKILL.md"})["code"] == -32002
    for body in (json.dumps(listed),):
        assert ZDR_ID not in body


def test_a_cleared_callers_kept_search_is_never_served_to_an_uncleared_one(
    published: Published, mcp: McpClient
) -> None:
    # The same arguments, first page and the next one, asked by a cleared caller first.
    cleared = mcp.call("skills_search", query="review", limit=1, _token=ZDR_TOKEN)["structuredContent"]
    pages = [cleared]
    while pages[-1]["next_cursor"] is not None:
        cursor = pages[-1]["next_cursor"]
        pages.append(
            mcp.call("skills_search", query="review", limit=1, cursor=cursor, _token=ZDR_TOKEN)[
                "structuredContent"
            ]
        )
    assert ZDR_ID in [hit["id"] for page in pages for hit in page["results"]]
    kept = len(answer_cache.answers)
    assert kept == len(pages)

    uncleared = mcp.ok("skills_search", query="review", limit=1)
    ids = [uncleared["results"][0]["id"]]
    while uncleared["next_cursor"] is not None:
        uncleared = mcp.ok("skills_search", query="review", limit=1, cursor=uncleared["next_cursor"])
        ids.append(uncleared["results"][0]["id"])
    assert ZDR_ID not in ids and len(ids) == len(pages) - 1
    assert len(answer_cache.answers) == kept + len(ids)  # kept apart, never one for the other
    # A cleared caller's cursor is not the uncleared caller's, kept or not.
    assert mcp.fails(
        "skills_search", "INVALID_CURSOR", query="review", limit=1, cursor=pages[0]["next_cursor"]
    )


def test_a_kept_search_after_a_publish_answers_stale_cursors_and_revisions_as_before(
    published: Published, mcp: McpClient
) -> None:
    first = mcp.ok("skills_search", query="review", limit=1)
    cursor = first["next_cursor"]
    assert mcp.ok("skills_search", query="review", limit=1, cursor=cursor)["results"]
    assert mcp.ok("skills_search", query="review", limit=1, revision=published.sha) == first
    published.repo.add_skill(
        "delta", name="Delta", description="Review the review of reviews.", tags=["review"]
    )
    sha = publish_head(published.repo)
    stale = mcp.fails("skills_search", "REVISION_UNAVAILABLE", query="review", limit=1, cursor=cursor)
    assert stale["error"]["active_sha"] == sha
    old = mcp.fails("skills_search", "REVISION_UNAVAILABLE", query="review", limit=1, revision=published.sha)
    assert old["error"]["active_sha"] == sha
    again = mcp.ok("skills_search", query="review", limit=1)
    assert again["registry_sha"] == sha and again == mcp.ok("skills_search", query="review", limit=1)


def test_a_publish_makes_new_answers_and_the_old_ones_are_never_served_for_it(
    published: Published, mcp: McpClient
) -> None:
    before = mcp.ok("skills_get", id="beta")
    assert before["registry_sha"] == published.sha
    old_page = mcp.ok("skills_list")
    published.repo.add_skill(
        "beta", body="Beta steps, rewritten.\n", name="Beta", description="New words.", version="1.0.1"
    )
    sha = publish_head(published.repo)
    after = mcp.ok("skills_get", id="beta")
    assert after["registry_sha"] == sha and after["instructions"] == "Beta steps, rewritten.\n"
    new_page = mcp.ok("skills_list")
    assert new_page["registry_sha"] == sha
    assert [skill["description"] for skill in new_page["skills"] if skill["id"] == "beta"] == ["New words."]
    assert old_page["registry_sha"] == published.sha
    # The earlier revision is no longer served, kept answer or not.
    assert mcp.fails("skills_get", "REVISION_UNAVAILABLE", id="beta", revision=published.sha)


def test_json_rpc_errors_are_not_kept(published: Published, mcp: McpClient) -> None:
    assert mcp.error("resources/read", {"uri": "skill://nope/SKILL.md"})["code"] == -32002
    assert mcp.error("skills/get", {"uri": "skill://alpha/SKILL.md"})["code"] == -32602  # not native
    assert mcp.error("resources/list", {"cursor": "not-a-cursor"})["code"] == -32602
    assert len(answer_cache.answers) == 0


def test_unkept_methods_leave_the_cache_alone(published: Published, mcp: McpClient) -> None:
    mcp.result("tools/list")
    mcp.result("ping")
    assert len(answer_cache.answers) == 0


def test_arguments_in_another_order_share_one_answer(published: Published, mcp: McpClient) -> None:
    one = mcp.ok("skills_get_file", id="alpha", path="scripts/run.sh")
    other = mcp.result(
        "tools/call", {"arguments": {"path": "scripts/run.sh", "id": "alpha"}, "name": "skills_get_file"}
    )["structuredContent"]
    assert one == other
    assert len(answer_cache.answers) == 1


def _text(n: int) -> bytes:
    return b"x" * n


def test_the_entry_bound_evicts_the_least_recently_used_at_its_edge() -> None:
    cache = AnswerCache(max_entries=3, max_bytes=10**9, max_entry_bytes=10**9)
    for key in "abc":
        cache.put(key, _text(1))
    assert cache.get("a") == b"x"  # a is now the most recently used
    cache.put("d", _text(1))
    assert len(cache) == 3
    assert cache.get("b") is None
    assert [cache.get(key) for key in "acd"] == [b"x", b"x", b"x"]


def test_the_byte_bound_evicts_at_its_edge() -> None:
    size = size_of("a", _text(100))
    cache = AnswerCache(max_entries=100, max_bytes=3 * size, max_entry_bytes=10**9)
    for key in "abc":
        cache.put(key, _text(100))
    assert len(cache) == 3 and cache.bytes == 3 * size  # exactly at the bound: all kept
    cache.put("d", _text(100))
    assert len(cache) == 3 and cache.bytes == 3 * size
    assert cache.get("a") is None and cache.get("d") is not None
    cache.put("e", _text(300))  # takes the room of several
    assert cache.bytes <= 3 * size
    assert cache.get("e") is not None


def test_an_answer_larger_than_the_entry_bound_is_not_kept() -> None:
    size = size_of("a", _text(100))
    cache = AnswerCache(max_entries=100, max_bytes=10**9, max_entry_bytes=size)
    cache.put("a", _text(100))
    cache.put("b", _text(101))
    assert cache.get("a") is not None and cache.get("b") is None
    assert cache.bytes == size


def test_putting_a_key_again_counts_it_once() -> None:
    cache = AnswerCache(max_entries=10, max_bytes=10**9, max_entry_bytes=10**9)
    cache.put("a", _text(10))
    cache.put("a", _text(10))
    assert len(cache) == 1 and cache.bytes == size_of("a", _text(10))


@pytest.mark.parametrize("answer_bytes", [40, 600, 40_000])
def test_what_an_entry_counts_against_the_byte_bound_is_all_it_holds(answer_bytes: int) -> None:
    """The answers, their keys as answer_key makes them (the arguments' bytes each entry's own)
    and the cache's own structures, traced, are no more than what the bound counts."""
    sha, when = "0" * 40, object()
    cache = AnswerCache(max_entries=10**6, max_bytes=10**12, max_entry_bytes=10**12)
    tracemalloc.start()
    try:
        for number in range(2000):
            arguments = {"name": "skills_get", "arguments": {"id": f"skill-{number:05d}"}}
            key = (sha, when, False, "modern", 300, "tools/call", arguments_key(arguments))
            cache.put(key, bytes(answer_bytes) + b"%d" % number)
        del key, arguments
        traced, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(cache) == 2000
    assert traced <= cache.bytes
    # Not far above it either: the shared SHA and names, and tracemalloc does not see what the
    # interpreter's free lists hand out again (the (answer, size) pairs).
    assert cache.bytes <= traced + 2000 * 512


def test_the_answer_cache_bounds_are_the_ones_the_limits_table_states() -> None:
    mib = 1024 * 1024
    assert answer_cache.MAX_BYTES % mib == 0 and answer_cache.MAX_ENTRY_BYTES % mib == 0
    assert limit("answers kept per worker (encoded once, served again)") == (
        f"{answer_cache.MAX_ENTRIES} answers, {answer_cache.MAX_BYTES // mib} MiB, "
        f"none larger than {answer_cache.MAX_ENTRY_BYTES // mib} MiB (`mcpapi.answer_cache`)"
    )


def test_an_arguments_key_holds_no_more_memory_than_its_bytes() -> None:
    """A key is kept with its answer: orjson's own bytes would hold its 4 KiB working buffer
    each (docs/benchmarks.md, "Every cache full, session 5"), 2,048 keys 8 MiB past MAX_BYTES."""
    arguments = {"name": "skills_search", "arguments": {"query": "pdf forms", "limit": 5}}
    tracemalloc.start()
    try:
        key = arguments_key(arguments)
        traced, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(key, bytes)
    # Slack for what else the interpreter allocates meanwhile (under 1 KiB).
    assert traced <= sys.getsizeof(key) + 1024


def test_the_arguments_key_is_one_per_set_of_arguments_whatever_their_order() -> None:
    one = arguments_key(
        {"name": "skills_search", "arguments": {"query": "q", "tags": ["a", "b"], "limit": 2}}
    )
    other = arguments_key(
        {"arguments": {"limit": 2, "tags": ["a", "b"], "query": "q"}, "name": "skills_search"}
    )
    assert one == other
    assert arguments_key({"name": "x", "_meta": {"progressToken": 1}}) == arguments_key({"name": "x"})


# What orjson would write as null, or as the same text as another value.
CONFUSABLE_ARGUMENTS: list[dict[str, Any]] = [
    {"limit": float("nan")},
    {"limit": float("inf")},
    {"limit": float("-inf")},
    {"limit": None},
    {},
    {"limit": 2},
    {"limit": 2.0},
    {"limit": True},
    {"limit": 1},
    {"limit": "2"},
    {"limit": 2**64},  # past orjson's integers: json's text
    {"limit": 2**64 + 1},
    {"query": "\ud800"},  # a lone surrogate: json's text
    {"query": "\ud801"},
    {"query": "null"},
    {"query": "nul"},
]


@pytest.mark.parametrize("arguments", CONFUSABLE_ARGUMENTS)
def test_different_arguments_never_share_a_key(arguments: dict[str, Any]) -> None:
    others = CONFUSABLE_ARGUMENTS
    key = arguments_key({"name": "skills_search", "arguments": arguments})
    same = [other for other in others if arguments_key({"name": "skills_search", "arguments": other}) == key]
    assert len(same) == 1 and json.dumps(same[0]) == json.dumps(arguments)

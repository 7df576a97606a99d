"""Search ranking (catalog.search, SPEC §9) as pure functions, then through skills_search."""

import pytest

from catalog import search as search_module
from catalog.index import SkillEntry
from catalog.search import SearchIndex, excerpt_around, filter_by_tags, query_terms, search
from tests.mcpapi.conftest import McpClient, config_with, publish_head


def skill(
    skill_id: str,
    *,
    name: str | None = None,
    description: str = "",
    body: str = "",
    tags: tuple[str, ...] = (),
    keywords: tuple[str, ...] = (),
) -> SkillEntry:
    return SkillEntry(
        id=skill_id,
        name=name or skill_id.title(),
        description=description or f"About {skill_id}.",
        version="1.0.0",
        tags=tags,
        keywords=keywords,
        requires=(),
        required_zdr=False,
        content_hash="0" * 64,
        instructions=body,
        skill_md_sha256="1" * 64,
        skill_md_size=1,
        files=(),
    )


def ranked(skills: list[SkillEntry], query: str) -> list[str]:
    return [hit.skill.id for hit in search(skills, query)]


def test_terms_are_the_lower_cased_query_split_on_white_space() -> None:
    assert query_terms("  Git\tCOMMIT\n messages ") == ["git", "commit", "messages"]
    assert query_terms(" \t ") == []


def test_the_sort_key_components_rank_in_order() -> None:
    skills = [
        skill("by-body", body="deploy here"),
        skill("by-description", description="How to deploy."),
        skill("by-keyword", keywords=("deploy",)),
        skill("by-tag", tags=("deploy",)),
        skill("deploy"),  # the exact id
    ]
    assert ranked(skills, "deploy") == ["deploy", "by-tag", "by-keyword", "by-description", "by-body"]


def test_an_exact_name_match_ranks_first_and_is_trimmed_and_case_insensitive() -> None:
    skills = [skill("a-tag", tags=("release", "notes")), skill("zeta", name="Release Notes")]
    assert ranked(skills, "  release NOTES ") == ["zeta", "a-tag"]


def test_more_matching_terms_rank_higher_within_a_component() -> None:
    skills = [skill("one", tags=("git",)), skill("two", tags=("git", "commit"))]
    assert ranked(skills, "git commit") == ["two", "one"]


def test_an_earlier_component_outweighs_any_number_of_later_ones() -> None:
    skills = [
        skill("many", description="git commit message style", body="git commit message style"),
        skill("tagged", tags=("style",)),
    ]
    assert ranked(skills, "git commit message style") == ["tagged", "many"]


def test_ties_are_broken_by_id() -> None:
    skills = [skill("charlie", tags=("x",)), skill("alpha", tags=("x",)), skill("bravo", tags=("x",))]
    assert ranked(skills, "x") == ["alpha", "bravo", "charlie"]


def test_skills_matching_nothing_are_not_results() -> None:
    assert ranked([skill("alpha"), skill("beta", body="nothing")], "kubernetes") == []


def test_a_blank_query_finds_nothing() -> None:
    assert ranked([skill("alpha")], "   ") == []


def test_comparisons_are_case_insensitive() -> None:
    skills = [skill("s", description="Use KUBERNETES", tags=("k8s",), keywords=("Helm",), body="KubeCTL")]
    [hit] = search(skills, "kubernetes K8S helm kubectl")
    assert hit.sort_key == (0, 1, 1, 1, 1)


def test_match_reasons_list_every_rule_and_term_pair_that_matched() -> None:
    target = skill(
        "review",
        name="Code Review",
        description="Review a pull request.",
        body="Read the diff, then review.",
        tags=("review", "git"),
        keywords=("pull request", "diff"),
    )
    [hit] = search([target], "review diff git")
    assert hit.reasons() == [
        {"rule": "tag", "term": "review"},
        {"rule": "tag", "term": "git"},
        {"rule": "keyword", "term": "diff"},
        {"rule": "description", "term": "review"},
        {"rule": "body", "term": "review"},
        {"rule": "body", "term": "diff"},
    ]
    [exact] = search([target], "Code Review")
    assert exact.reasons()[0] == {"rule": "exact", "term": "code review"}
    assert {"rule": "description", "term": "review"} in exact.reasons()


def test_a_repeated_term_is_one_reason() -> None:
    [hit] = search([skill("s", tags=("git",))], "git GIT")
    assert hit.reasons() == [{"rule": "tag", "term": "git"}]


def test_a_repeated_word_counts_each_time_it_is_repeated() -> None:
    [hit] = search([skill("s", tags=("git",), body="git")], "git GIT")
    assert hit.sort_key == (0, 2, 0, 0, 2)


def test_a_search_index_answers_the_same_as_a_fresh_search_with_a_bounded_term_cache(monkeypatch) -> None:
    monkeypatch.setattr(search_module, "TERM_CACHE_SIZE", 2)
    skills = [skill(f"s{i}", description=f"word{i % 3} shared", body=f"body{i % 2}") for i in range(12)]
    index = SearchIndex(skills)
    for query in ("word0", "body1 shared", "word2 word0", "word0", "nothing", "body1 shared"):
        assert [hit.skill.id for hit in index.search(query)] == [
            hit.skill.id for hit in search(skills, query)
        ]
    assert len(index._substrings) == 2


def test_search_results_build_hits_only_when_read() -> None:
    results = SearchIndex([skill("a", tags=("x",)), skill("b", tags=("x",)), skill("c")]).search("x")
    assert len(results) == 2
    assert [hit.skill.id for hit in results[1:]] == ["b"]
    assert results[0].reasons() == [{"rule": "tag", "term": "x"}]


def test_a_keyword_matches_a_whole_term_and_a_substring_does_not() -> None:
    assert ranked([skill("s", keywords=("deployment",), tags=("deploy-tools",))], "deploy") == []


def test_the_excerpt_comes_from_the_description_around_its_earliest_hit() -> None:
    description = "a" * 100 + " target " + "b" * 100 + " other"
    [hit] = search([skill("s", description=description, body="target in body")], "other target")
    excerpt = hit.excerpt(20)
    assert len(excerpt) == 20
    assert "target" in excerpt
    assert excerpt in description


def test_the_excerpt_falls_back_to_the_body_around_its_earliest_hit() -> None:
    body = "x" * 300 + " needle " + "y" * 300
    [hit] = search([skill("s", description="Nothing here.", body=body)], "needle")
    excerpt = hit.excerpt(30)
    assert len(excerpt) == 30
    assert "needle" in excerpt
    assert excerpt in body


def test_the_excerpt_is_the_start_of_the_description_when_neither_text_matches() -> None:
    description = "Starts here and goes on " + "z" * 300
    [hit] = search([skill("s", description=description, tags=("tagged",))], "tagged")
    assert hit.excerpt(25) == description[:25]


def test_a_short_text_is_its_own_excerpt() -> None:
    [hit] = search([skill("s", description="Short text.")], "text")
    assert hit.excerpt(240) == "Short text."


def test_the_excerpt_keeps_the_original_case_and_never_exceeds_the_limit() -> None:
    text = "Intro. The NEEDLE is here. " + "Outro " * 50
    excerpt = excerpt_around(text, ["needle"], 16)
    assert len(excerpt) <= 16
    assert "NEEDLE" in excerpt


def test_the_excerpt_finds_positions_in_text_whose_lower_case_is_longer() -> None:
    text = "İ" * 50 + " needle " + "z" * 50
    excerpt = excerpt_around(text, ["needle"], 10)
    assert "needle" in excerpt
    assert len(excerpt) == 10


def test_the_tags_filter_needs_every_tag_case_insensitively() -> None:
    skills = [skill("a", tags=("git", "review")), skill("b", tags=("git",)), skill("c")]
    assert [s.id for s in filter_by_tags(skills, ["GIT"])] == ["a", "b"]
    assert [s.id for s in filter_by_tags(skills, ["git", "Review"])] == ["a"]
    assert [s.id for s in filter_by_tags(skills, [])] == ["a", "b", "c"]


# --- through skills_search ----------------------------------------------------------------


@pytest.mark.django_db
def test_search_results_carry_metadata_match_reasons_and_excerpt(mcp: McpClient, standard) -> None:
    result = mcp.ok("skills_search", query="review")
    assert [hit["id"] for hit in result["results"]] == ["alpha", "gamma"]
    alpha = result["results"][0]
    assert alpha["name"] == "Alpha"
    assert alpha["content_hash"]
    assert alpha["match_reasons"] == [
        {"rule": "tag", "term": "review"},
        {"rule": "description", "term": "review"},
        {"rule": "body", "term": "review"},
    ]
    assert alpha["excerpt"] == "Review pull requests carefully."
    assert result["results"][1]["excerpt"] == "Gamma steps mention review once.\n"
    assert result["next_cursor"] is None


@pytest.mark.django_db
def test_search_ranks_ties_by_id(mcp: McpClient, standard) -> None:
    assert [hit["id"] for hit in mcp.ok("skills_search", query="git")["results"]] == ["beta", "gamma"]


@pytest.mark.django_db
def test_search_applies_the_tags_filter(mcp: McpClient, standard) -> None:
    assert [hit["id"] for hit in mcp.ok("skills_search", query="steps", tags=["RELEASE"])["results"]] == [
        "gamma"
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["", " ", "\t\n"])
def test_a_blank_query_is_an_invalid_argument_error(mcp: McpClient, standard, query: str) -> None:
    assert "'query' must not be empty or blank" in mcp.invalid_argument("skills_search", query=query)


@pytest.mark.django_db
def test_a_blank_query_is_an_invalid_argument_error_even_before_any_publish(mcp: McpClient) -> None:
    result = mcp.fails("skills_search", "INVALID_ARGUMENT", query=" ")
    assert result["registry_sha"] is None and result["published_at"] is None


@pytest.mark.django_db
def test_search_pages_follow_next_cursor(mcp: McpClient, standard) -> None:
    first = mcp.ok("skills_search", query="steps", limit=2)
    assert [hit["id"] for hit in first["results"]] == ["alpha", "beta"]
    second = mcp.ok("skills_search", query="steps", limit=2, cursor=first["next_cursor"])
    assert [hit["id"] for hit in second["results"]] == ["gamma"]
    assert second["next_cursor"] is None


@pytest.mark.django_db
def test_a_search_cursor_is_bound_to_its_query(mcp: McpClient, standard) -> None:
    cursor = mcp.ok("skills_search", query="steps", limit=1)["next_cursor"]
    assert mcp.ok("skills_search", query=" STEPS ", limit=1, cursor=cursor)["results"][0]["id"] == "beta"
    mcp.fails("skills_search", "INVALID_CURSOR", query="review", limit=1, cursor=cursor)
    mcp.fails("skills_search", "INVALID_CURSOR", query="steps", tags=["git"], limit=1, cursor=cursor)


@pytest.mark.django_db
@pytest.mark.parametrize(("limit", "rule"), [(0, "at least 1"), (101, "at most 100")])
def test_search_limit_out_of_range_is_an_invalid_argument_error(
    mcp: McpClient, standard, limit: int, rule: str
) -> None:
    assert f"'limit' must be {rule}" in mcp.invalid_argument("skills_search", query="steps", limit=limit)


@pytest.mark.django_db
def test_search_uses_the_published_excerpt_length_and_limits(mcp: McpClient, make_repo) -> None:
    repo = make_repo(config_with(search={"default_limit": 1, "max_limit": 2, "excerpt_chars": 12}))
    repo.add_skill("long", description="word " * 40 + "needle " + "word " * 40)
    repo.add_skill("other", description="Another needle.")
    publish_head(repo)
    result = mcp.ok("skills_search", query="needle")
    assert len(result["results"]) == 1
    assert len(result["results"][0]["excerpt"]) <= 12
    assert "needle" in result["results"][0]["excerpt"]
    assert "'limit' must be at most 2" in mcp.invalid_argument("skills_search", query="needle", limit=3)

"""skills_search over the wire: results, reasons, excerpts, filters, pages and clearance.
The ranking rules themselves are tested as pure functions in tests/catalog/test_search_*.py."""

import pytest

from tests.support.mcp import McpClient, publish_head
from tests.support.repos import DEFAULT_CONFIG, config_with_sections
from tests.support.tokens import ZDR_TOKEN

SEARCH_MAX = DEFAULT_CONFIG["search"]["max_limit"]

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
    # "steps" is in every body; the shortest body holds it most densely, so it ranks first.
    first = mcp.ok("skills_search", query="steps", limit=2)
    assert [hit["id"] for hit in first["results"]] == ["beta", "alpha"]
    second = mcp.ok("skills_search", query="steps", limit=2, cursor=first["next_cursor"])
    assert [hit["id"] for hit in second["results"]] == ["gamma"]
    assert second["next_cursor"] is None


@pytest.mark.django_db
def test_a_search_cursor_is_bound_to_its_query(mcp: McpClient, standard) -> None:
    cursor = mcp.ok("skills_search", query="steps", limit=1)["next_cursor"]
    assert mcp.ok("skills_search", query=" STEPS ", limit=1, cursor=cursor)["results"][0]["id"] == "alpha"
    mcp.fails("skills_search", "INVALID_CURSOR", query="review", limit=1, cursor=cursor)
    mcp.fails("skills_search", "INVALID_CURSOR", query="steps", tags=["git"], limit=1, cursor=cursor)


@pytest.mark.django_db
@pytest.mark.parametrize(("limit", "rule"), [(0, "at least 1"), (SEARCH_MAX + 1, f"at most {SEARCH_MAX}")])
def test_search_limit_out_of_range_is_an_invalid_argument_error(
    mcp: McpClient, standard, limit: int, rule: str
) -> None:
    assert f"'limit' must be {rule}" in mcp.invalid_argument("skills_search", query="steps", limit=limit)


@pytest.mark.django_db
def test_search_uses_the_published_excerpt_length_and_limits(mcp: McpClient, make_repo) -> None:
    repo = make_repo(config_with_sections(search={"default_limit": 1, "max_limit": 2, "excerpt_chars": 12}))
    repo.add_skill("long", description="word " * 40 + "needle " + "word " * 40)
    repo.add_skill("other", description="Another needle.")
    publish_head(repo)
    result = mcp.ok("skills_search", query="needle")
    assert len(result["results"]) == 1
    both = mcp.ok("skills_search", query="needle", limit=2)["results"]
    assert {hit["id"] for hit in both} == {"long", "other"}
    for hit in both:
        assert len(hit["excerpt"]) <= 12
        assert "needle" in hit["excerpt"]
    assert "'limit' must be at most 2" in mcp.invalid_argument("skills_search", query="needle", limit=3)


@pytest.mark.django_db
def test_search_matches_words_and_stems_not_substrings(mcp: McpClient, make_repo) -> None:
    repo = make_repo()
    repo.add_skill(
        "word-docs", name="Converter", description="Convert a document to another format.", body="Steps.\n"
    )
    repo.add_skill("pdf-forms", name="Filler", description="Fill in PDF forms.", body="Steps.\n")
    publish_head(repo)
    found = mcp.ok("skills_search", query="a pdf form")["results"]
    assert [hit["id"] for hit in found] == ["pdf-forms"]
    assert found[0]["match_reasons"] == [
        {"rule": "description", "term": "pdf"},
        {"rule": "description", "term": "form"},
    ]
    assert found[0]["excerpt"] == "Fill in PDF forms."


@pytest.mark.django_db
def test_a_query_of_stop_words_is_an_empty_page_not_an_error(mcp: McpClient, standard) -> None:
    result = mcp.ok("skills_search", query="the and of")
    assert result["results"] == [] and result["next_cursor"] is None


@pytest.mark.django_db
def test_a_zdr_skill_moves_no_uncleared_ranking(mcp: McpClient, make_repo) -> None:
    """The text statistics are the caller's view's: with ZDR skills that make "rotate" common
    among all skills, an uncleared caller's ranking is that of a registry without them."""
    repo = make_repo()
    repo.add_skill("alpha", description="Rotate the keys.", body="Steps.\n")
    for name in ("bravo", "charlie", "delta"):
        repo.add_skill(name, description=f"Deploy the {name} service.", body="Steps.\n")
    publish_head(repo, "public only")
    before = mcp.ok("skills_search", query="rotate deploy")["results"]
    for n in range(5):
        repo.add_skill(
            f"zdr-{n}",
            description="Rotate, rotate the vault.",
            body="Steps.\n",
            required_zdr=True,
        )
    publish_head(repo, "with zdr skills")
    after = mcp.ok("skills_search", query="rotate deploy")["results"]
    assert after == before
    assert before[0]["id"] == "alpha"
    cleared = mcp.ok("skills_search", query="rotate deploy", _token=ZDR_TOKEN)["results"]
    assert next(hit["id"] for hit in cleared if not hit["required_zdr"]) == "bravo"

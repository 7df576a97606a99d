"""The four tools over /mcp, against skills published from real repositories."""

import hashlib
import json

import jsonschema
import pytest

from catalog.searchquery import parse_query
from mcpapi import tools
from tests.mcpapi.tools_support import ARGUMENTS, TOOLS, ids
from tests.support.mcp import McpClient, Published, publish_head
from tests.support.standard import GUIDE, SCRIPT

pytestmark = pytest.mark.django_db


@pytest.fixture
def output_schemas(mcp: McpClient) -> dict[str, dict]:
    return {tool["name"]: tool["outputSchema"] for tool in mcp.result("tools/list")["tools"]}


# --- every tool ---------------------------------------------------------------------------


@pytest.mark.parametrize("tool", TOOLS)
def test_every_result_carries_the_registry_fields_and_fits_its_output_schema(
    mcp: McpClient, standard: Published, output_schemas: dict, tool: str
) -> None:
    result = mcp.ok(tool, **ARGUMENTS[tool])
    assert result["api_version"] == "1"
    assert result["registry_sha"] == standard.sha
    assert result["published_at"].startswith("20") and "T" in result["published_at"]
    jsonschema.validate(result, output_schemas[tool])


@pytest.mark.parametrize("tool", TOOLS)
def test_every_tool_reports_an_empty_registry(mcp: McpClient, output_schemas: dict, tool: str) -> None:
    result = mcp.fails(tool, "REGISTRY_EMPTY", **ARGUMENTS[tool])
    assert result["registry_sha"] is None
    assert result["published_at"] is None
    assert result["api_version"] == "1"
    jsonschema.validate(result, output_schemas[tool])


def test_error_results_fit_the_output_schema(
    mcp: McpClient, standard: Published, output_schemas: dict
) -> None:
    result = mcp.fails("skills_get", "REVISION_UNAVAILABLE", id="alpha", revision="0" * 40)
    jsonschema.validate(result, output_schemas["skills_get"])


def test_an_unknown_tool_is_invalid_params(mcp: McpClient, standard: Published) -> None:
    error = mcp.error("tools/call", {"name": "skills_delete", "arguments": {}})
    assert error["code"] == -32602
    assert "skills_delete" in error["message"]


@pytest.mark.parametrize("params", [{}, {"name": 5}, {"name": "skills_list", "arguments": []}])
def test_a_malformed_call_is_invalid_params(mcp: McpClient, params: dict) -> None:
    assert mcp.error("tools/call", params)["code"] == -32602


def test_omitted_arguments_are_an_empty_object(mcp: McpClient, standard: Published) -> None:
    assert mcp.result("tools/call", {"name": "skills_list"})["isError"] is False


@pytest.mark.parametrize("tool", TOOLS)
def test_an_unknown_argument_is_an_invalid_argument_error(
    mcp: McpClient, standard: Published, tool: str
) -> None:
    message = mcp.invalid_argument(tool, **ARGUMENTS[tool], verbose=True)
    assert "unknown argument 'verbose'" in message
    assert all(repr(name) in message for name in ARGUMENTS[tool])  # the arguments there are


@pytest.mark.parametrize(
    ("tool", "arguments", "rule"),
    [
        ("skills_list", {"limit": "10"}, "'limit' must be an integer"),
        ("skills_list", {"limit": 2.5}, "'limit' must be an integer"),
        ("skills_list", {"limit": True}, "'limit' must be an integer"),
        ("skills_list", {"tags": "git"}, "'tags' must be an array"),
        ("skills_list", {"tags": [1]}, "'tags'[0] must be a string"),
        ("skills_list", {"cursor": 3}, "'cursor' must be a string"),
        ("skills_list", {"revision": 1234567}, "'revision' must be a string"),
        ("skills_search", {}, "'query' is required"),
        ("skills_search", {"query": ["review"]}, "'query' must be a string"),
        ("skills_get", {}, "'id' is required"),
        ("skills_get", {"id": None}, "'id' must be a string"),
        ("skills_get", {"id": 1}, "'id' must be a string"),
        ("skills_get_file", {"id": "alpha"}, "'path' is required"),
        ("skills_get_file", {"path": "references/guide.md"}, "'id' is required"),
        ("skills_get_file", {"id": "alpha", "path": ["references/guide.md"]}, "'path' must be a string"),
    ],
)
def test_missing_or_mistyped_arguments_are_invalid_argument_errors_naming_argument_and_rule(
    mcp: McpClient, standard: Published, tool: str, arguments: dict, rule: str
) -> None:
    assert rule in mcp.invalid_argument(tool, **arguments)


def test_optional_arguments_given_as_null_are_omitted(mcp: McpClient, standard: Published) -> None:
    result = mcp.ok("skills_list", tags=None, limit=None, cursor=None, revision=None)
    assert ids(result["skills"]) == ["alpha", "beta", "gamma"]


# --- skills_get ---------------------------------------------------------------------------


def test_get_returns_metadata_instructions_and_the_files_manifest(
    mcp: McpClient, standard: Published
) -> None:
    result = mcp.ok("skills_get", id="alpha")
    assert result["metadata"]["id"] == "alpha"
    assert result["instructions"] == "Alpha steps: review the diff.\n"
    assert result["files"] == [
        {
            "path": "references/guide.md",
            "size": len(GUIDE.encode()),
            "sha256": hashlib.sha256(GUIDE.encode()).hexdigest(),
            "media_type": result["files"][0]["media_type"],
            "executable": False,
        },
        {
            "path": "scripts/run.sh",
            "size": len(SCRIPT.encode()),
            "sha256": hashlib.sha256(SCRIPT.encode()).hexdigest(),
            "media_type": result["files"][1]["media_type"],
            "executable": True,
        },
    ]
    assert result["files"][0]["media_type"].startswith("text/")


def test_get_returns_the_body_unchanged(mcp: McpClient, make_repo) -> None:
    body = "\n# Title\n\n  indented  \r\nunicode: é ✓ 🎉\n\n"
    repo = make_repo()
    repo.add_skill("spaces", body=body)
    publish_head(repo)
    assert mcp.ok("skills_get", id="spaces")["instructions"] == body


@pytest.mark.parametrize("skill_id", ["alpha ", " alpha", "ALPHA", "Alpha", "alph", "", "alpha/", "../alpha"])
def test_ids_are_matched_exactly(mcp: McpClient, standard: Published, skill_id: str) -> None:
    mcp.fails("skills_get", "SKILL_NOT_FOUND", id=skill_id)


# --- ZDR --------------------------------------------------------------------------------


def test_zdr_skills_do_not_exist_for_an_uncleared_caller(mcp: McpClient, standard: Published) -> None:
    assert "secret-ops" not in ids(mcp.ok("skills_list")["skills"])
    assert "secret-ops" not in ids(mcp.ok("skills_list", tags=["security"])["skills"])
    assert "secret-ops" not in ids(mcp.ok("skills_search", query="secret ops security incident")["results"])
    assert "secret-ops" not in ids(mcp.ok("skills_search", query="Secret Ops")["results"])
    mcp.fails("skills_get", "SKILL_NOT_FOUND", id="secret-ops")
    mcp.fails("skills_get_file", "SKILL_NOT_FOUND", id="secret-ops", path="references/runbook.md")
    everything = json.dumps([mcp.ok("skills_list"), mcp.ok("skills_search", query="review")])
    assert "secret" not in everything.lower()


def test_zdr_skills_are_visible_to_a_cleared_caller(mcp_zdr: McpClient, standard: Published) -> None:
    assert ids(mcp_zdr.ok("skills_list")["skills"]) == ["alpha", "beta", "gamma", "secret-ops"]
    assert ids(mcp_zdr.ok("skills_list", tags=["security"])["skills"]) == ["secret-ops"]
    assert ids(mcp_zdr.ok("skills_search", query="Secret Ops")["results"])[0] == "secret-ops"
    assert mcp_zdr.ok("skills_get", id="secret-ops")["metadata"]["required_zdr"] is True
    assert (
        mcp_zdr.ok("skills_get_file", id="secret-ops", path="references/runbook.md")["text"] == "# Runbook\n"
    )


def test_a_cursor_does_not_cross_clearances(mcp: McpClient, mcp_zdr: McpClient, standard: Published) -> None:
    cursor = mcp_zdr.ok("skills_list", limit=2)["next_cursor"]
    mcp.fails("skills_list", "INVALID_CURSOR", limit=2, cursor=cursor)


def test_pages_of_an_uncleared_caller_never_count_zdr_skills(mcp: McpClient, standard: Published) -> None:
    seen, cursor = [], None
    while True:
        page = mcp.ok("skills_list", limit=1, cursor=cursor)
        seen += ids(page["skills"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ["alpha", "beta", "gamma"]


# --- what one call may ask for ------------------------------------------------------------


def test_a_query_of_1024_characters_is_served_and_one_more_is_refused(
    mcp: McpClient, standard: Published
) -> None:
    query = "review " + "x" * (1024 - len("review "))
    assert len(query) == 1024
    assert mcp.ok("skills_search", query=query)["results"] is not None
    message = mcp.invalid_argument("skills_search", query=query + "x")
    assert "'query' must be at most 1024 characters long" in message


def test_a_query_of_64_distinct_words_is_served_and_65_are_refused(
    mcp: McpClient, standard: Published
) -> None:
    words = [f"w{index}" for index in range(64)]
    assert mcp.ok("skills_search", query=" ".join(words))["results"] == []
    repeated = " ".join(words + words)  # repeats are one word
    assert mcp.ok("skills_search", query=repeated)["results"] == []
    message = mcp.invalid_argument("skills_search", query=" ".join([*words, "w64"]))
    assert "'query' holds 65 distinct words; at most 64" in message


# Stop words, repeats in other cases, stems shared by two words, words joined by punctuation,
# marks, digits and scripts without case: the bound counts what parse_query reads.
WORDY_QUERIES = [
    "the THE the and",
    "Deploy deploying deployed — deploys",
    "postgres-migrations, k8s/helm; x_y z.z",
    "İstanbul straße STRASSE ſ K k",
    "e\u0301te\u0301 été 東京 東京 ١٢٣",
    "   ",
    "a" * 100,
]


@pytest.mark.parametrize("query", WORDY_QUERIES, ids=range(len(WORDY_QUERIES)))
def test_distinct_terms_are_the_words_search_reads(query: str) -> None:
    assert tools.distinct_terms(query) == len(parse_query(query).all_words)


def test_the_word_bound_counts_words_case_insensitively(mcp: McpClient, standard: Published) -> None:
    words = [f"w{index}" for index in range(64)]
    assert mcp.ok("skills_search", query=" ".join(words + [word.upper() for word in words]))["results"] == []


@pytest.mark.parametrize("tool", ["skills_list", "skills_search"])
def test_32_tags_are_served_and_33_are_refused(mcp: McpClient, standard: Published, tool: str) -> None:
    query = {"query": "review"} if tool == "skills_search" else {}
    tags = [f"t{index}" for index in range(32)]
    assert mcp.ok(tool, tags=tags, **query)
    message = mcp.invalid_argument(tool, tags=[*tags, "t32"], **query)
    assert "'tags' must hold at most 32 items" in message


def test_arguments_are_checked_before_the_first_publish_too(mcp: McpClient) -> None:
    result = mcp.fails("skills_list", "INVALID_ARGUMENT", limit=0)
    assert (result["registry_sha"], result["published_at"]) == (None, None)
    mcp.fails("skills_get", "INVALID_ARGUMENT")
    mcp.fails("skills_list", "REGISTRY_EMPTY", limit=500)  # no config yet, so no maximum


def test_an_invalid_argument_error_fits_the_output_schema(
    mcp: McpClient, standard: Published, output_schemas: dict
) -> None:
    result = mcp.fails("skills_get_file", "INVALID_ARGUMENT", id="alpha")
    jsonschema.validate(result, output_schemas["skills_get_file"])
    assert result["registry_sha"] == standard.sha

"""The ranking rules of search (catalog.search, docs/reference.md#search), as pure functions."""

import pytest

from catalog import search as search_module
from catalog.search import SearchIndex, normalise, parse_query
from tests.catalog.search_support import ranked, reasons, skill

# --- terms ------------------------------------------------------------------------------------


def test_terms_are_the_words_of_the_query_less_stop_words_and_repeats() -> None:
    query = parse_query("  How do I fill the PDF forms, PDF form-filling?  ")
    # "form" and "filling" repeat the stems of "forms" and "fill".
    assert [term.word for term in query.terms] == ["fill", "pdf", "forms"]
    assert query.whole == "how do i fill the pdf forms, pdf form-filling?"


def test_normalise_trims_and_case_folds_the_whole_query() -> None:
    assert normalise("  Straße PDF\t") == "strasse pdf"
    assert normalise("\n") == ""


def test_a_single_letter_no_longer_matches_every_skill() -> None:
    skills = [skill("alpha", body="A tale of a cat."), skill("beta", body="Another day.")]
    assert ranked(skills, "a") == []
    assert ranked(skills, "test a web app") == []


def test_a_term_matches_whole_words_never_part_of_a_word() -> None:
    skills = [
        skill("word-skill", description="Convert a document to another format."),
        skill("pdf-skill", description="Fill in a PDF form."),
    ]
    assert ranked(skills, "form") == ["pdf-skill"]
    assert ranked(skills, "pdf form") == ["pdf-skill"]
    assert ranked([skill("typed", body="A boolean flag.")], "lean") == []
    assert ranked([skill("users", body="Our users use it for business.")], "us") == []


def test_a_term_matches_another_form_of_the_same_word() -> None:
    skills = [
        skill("slides", description="Build a presentation."),
        skill("qa", body="How we test the app."),
        skill("rules", body="Follow the regulation."),
    ]
    assert ranked(skills, "presentations") == ["slides"]
    assert ranked(skills, "testing") == ["qa"]
    assert ranked(skills, "regulate") == ["rules"]


def test_stop_words_never_match_and_a_query_of_only_stop_words_finds_nothing() -> None:
    skills = [skill("guide", description="How to do it: what and why.", body="The what and the how.")]
    assert ranked(skills, "how to do it") == []
    assert ranked(skills, "the") == []


def test_a_query_of_only_stop_words_still_finds_an_exact_name() -> None:
    skills = [skill("how-to", name="How To"), skill("other", description="How to do things.")]
    assert ranked(skills, "how to") == ["how-to"]
    assert reasons(skills[0], "HOW TO ") == [("exact", "how to")]


def test_a_query_matching_nothing_finds_nothing() -> None:
    assert ranked([skill("alpha"), skill("beta", body="nothing")], "kubernetes") == []
    assert ranked([skill("alpha")], "   ") == []
    assert ranked([skill("alpha")], "--- !!! ???") == []


# --- tags and keywords ------------------------------------------------------------------------


def test_a_term_matches_a_word_of_a_tag_or_keyword_by_stem() -> None:
    target = skill("rev", tags=("code-review",), keywords=("pull requests",))
    assert reasons(target, "reviewing a request") == [("tag", "reviewing"), ("keyword", "request")]


def test_a_tag_also_matches_as_a_whole_string_and_counts_once_more() -> None:
    whole = skill("whole", tags=("code-review",))
    split = skill("split", tags=("code", "review"))
    assert reasons(whole, "code-review checklist") == [
        ("tag", "code"),
        ("tag", "review"),
        ("tag", "code-review"),
    ]
    assert reasons(split, "code-review checklist") == [("tag", "code"), ("tag", "review")]
    assert ranked([split, whole], "code-review checklist") == ["whole", "split"]
    # Spaced apart, the words match but the whole string does not: a tie, broken by id.
    assert ranked([split, whole], "code review") == ["split", "whole"]


def test_a_keyword_with_symbols_matches_whole_and_tells_c_sharp_from_c_plus_plus() -> None:
    sharp = skill("sharp", keywords=("c#",))
    plus = skill("plus", keywords=("c++",))
    assert ranked([plus, sharp], "c# tests") == ["sharp", "plus"]
    assert reasons(sharp, "c# tests") == [("keyword", "c"), ("keyword", "c#")]
    assert reasons(plus, "c# tests") == [("keyword", "c")]
    assert ranked([plus, sharp], "c++ build") == ["plus", "sharp"]


def test_a_whole_label_must_not_cut_a_word_of_the_query() -> None:
    target = skill("ops", tags=("on-call",))
    assert reasons(target, "on-calls rota") == [("tag", "calls")]
    assert reasons(target, "the on-call rota") == [("tag", "call"), ("tag", "on-call")]


def test_a_stop_word_tag_matches_only_whole() -> None:
    target = skill("helpdesk", tags=("it",))
    assert reasons(target, "it support") == [("tag", "it")]
    assert ranked([target], "it") == []  # no term left, and not the id or name


def test_a_single_word_tag_found_whole_is_the_match_of_its_term_counted_once() -> None:
    assert reasons(skill("qa", tags=("testing",)), "testing tests") == [("tag", "testing")]


def test_every_comparison_is_case_insensitive() -> None:
    target = skill(
        "k8s", tags=("Kubernetes",), keywords=("HELM Charts",), description="Use KUBECTL.", body="Pods"
    )
    assert reasons(target, "KUBERNETES helm charts kubectl pods") == [
        ("tag", "kubernetes"),
        ("keyword", "helm"),
        ("keyword", "charts"),
        ("keyword", "helm charts"),
        ("description", "kubectl"),
        ("body", "pods"),
    ]


def test_a_label_never_matches_part_of_a_word() -> None:
    assert ranked([skill("s", keywords=("redeployment",), tags=("autodeploy",))], "deploy") == []


# --- order ------------------------------------------------------------------------------------


def test_the_tiers_rank_in_order_exact_tag_keyword_text() -> None:
    skills = [
        skill("by-body", body="deploy here"),
        skill("by-description", description="How to deploy."),
        skill("by-keyword", keywords=("deploy",)),
        skill("by-name", name="Deploy things"),
        skill("by-tag", tags=("deploy",)),
        skill("deploy"),  # the exact id
    ]
    expected = ["deploy", "by-tag", "by-keyword", "by-name", "by-description", "by-body"]
    assert ranked(skills, "deploy") == expected


def test_an_exact_name_ranks_first_and_is_trimmed_and_case_insensitive() -> None:
    skills = [skill("a-tag", tags=("release", "notes")), skill("zeta", name="Release Notes")]
    assert ranked(skills, "  release NOTES ") == ["zeta", "a-tag"]


def test_more_terms_matching_tags_rank_higher() -> None:
    skills = [skill("one", tags=("git",)), skill("two", tags=("git", "commit"))]
    assert ranked(skills, "git commit") == ["two", "one"]


def test_an_earlier_tier_outweighs_any_amount_of_a_later_one() -> None:
    skills = [
        skill("many", name="Git commit style", description="git commit message style", body="git commit"),
        skill("tagged", tags=("style",)),
        skill("keyworded", keywords=("git", "commit")),
    ]
    assert ranked(skills, "git commit message style") == ["tagged", "keyworded", "many"]


def test_a_word_in_the_name_or_description_counts_more_than_in_the_body() -> None:
    skills = [
        skill("in-body", body="Export the invoice as a spreadsheet for finance."),
        skill("in-description", description="Invoices for customers."),
        skill("in-name", name="Invoice"),
    ]
    assert ranked(skills, "invoice") == ["in-name", "in-description", "in-body"]


def test_a_rare_term_counts_more_than_a_common_one() -> None:
    common = [skill(f"filler-{n}", description="Deploy the service.") for n in range(8)]
    skills = [
        *common,
        skill("rare", description="Rotate the signing keys."),
        skill("usual", description="Deploy and deploy again."),
    ]
    # "usual" holds the common word twice, "rare" the rare word once: rarity wins.
    assert ranked(skills, "deploy rotate")[0] == "rare"


def test_more_of_the_terms_rank_higher_than_fewer() -> None:
    skills = [skill("one", description="Merge PDF files."), skill("both", description="Merge PDF forms.")]
    assert ranked(skills, "pdf forms") == ["both", "one"]


def test_the_same_word_in_a_shorter_field_counts_more() -> None:
    skills = [
        skill("long", body="kafka " + "other words about many unrelated things " * 20),
        skill("short", body="kafka consumers"),
    ]
    assert ranked(skills, "kafka") == ["short", "long"]


def test_ties_are_broken_by_id_whatever_order_the_skills_come_in() -> None:
    skills = [skill("charlie", tags=("x",)), skill("alpha", tags=("x",)), skill("bravo", tags=("x",))]
    assert [hit.skill.id for hit in SearchIndex(skills).search("x")] == ["alpha", "bravo", "charlie"]
    text = [skill("zulu", body="same words"), skill("echo", body="same words")]
    assert [hit.skill.id for hit in SearchIndex(text).search("words")] == ["echo", "zulu"]
    assert ranked(text, "same words") == ["echo", "zulu"]


def test_word_order_and_case_do_not_change_the_ranking() -> None:
    skills = [
        skill("a", description="Merge and split PDF files quickly."),
        skill("b", description="Split large PDF reports into chapters.", body="Merge them back later."),
        skill("c", body="PDF PDF PDF split"),
    ]
    assert ranked(skills, "merge split pdf") == ranked(skills, "PDF Split MERGE")


def test_the_tags_filter_needs_every_tag_case_insensitively() -> None:
    skills = [skill("a", tags=("git", "review")), skill("b", tags=("git",)), skill("c")]
    index = SearchIndex(skills)
    assert [s.id for s in index.with_tags(["GIT"])] == ["a", "b"]
    assert [s.id for s in index.with_tags(["git", "Review"])] == ["a"]
    assert [s.id for s in index.with_tags([])] == ["a", "b", "c"]
    steps = [skill("a", tags=("git",), body="steps"), skill("b", body="steps")]
    assert ranked(steps, "steps", ("Git",)) == ["a"]


# --- reasons ----------------------------------------------------------------------------------


def test_match_reasons_list_every_rule_and_term_that_matched_in_order() -> None:
    target = skill(
        "review",
        name="Code Review",
        description="Review a pull request.",
        body="Read the diff, then review.",
        tags=("review", "git"),
        keywords=("pull request", "diff"),
    )
    assert reasons(target, "reviews diff git") == [
        ("tag", "reviews"),
        ("tag", "git"),
        ("keyword", "diff"),
        ("name", "reviews"),
        ("description", "reviews"),
        ("body", "reviews"),
        ("body", "diff"),
    ]
    exact = reasons(target, "Code Review")
    assert exact[0] == ("exact", "code review")
    assert ("name", "code") in exact and ("description", "review") in exact


def test_a_repeated_word_is_one_term_and_one_reason() -> None:
    assert reasons(skill("s", tags=("git",)), "git GIT") == [("tag", "git")]
    assert reasons(skill("s", body="We test everything."), "test tests testing") == [("body", "test")]
    # Repeating a word gives it no more weight: one tag each, a tie broken by id.
    assert ranked([skill("b-git", tags=("git",)), skill("a-commit", tags=("commit",))], "git git commit") == [
        "a-commit",
        "b-git",
    ]


def test_search_results_build_hits_only_when_read_and_slice_like_a_list() -> None:
    results = SearchIndex([skill("a", tags=("x",)), skill("b", tags=("x",)), skill("c")]).search("x")
    assert len(results) == 2
    assert [hit.skill.id for hit in results[1:]] == ["b"]
    assert results[-1].skill.id == "b"
    assert results[0].match_reasons() == [("tag", "x")]
    with pytest.raises(IndexError):
        results[2]


def test_rankings_are_remembered_up_to_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "RANKED_CACHE_SIZE", 2)
    skills = [skill(f"s{i}", description=f"word{i % 3} shared", body=f"body{i % 2}") for i in range(12)]
    index = SearchIndex(skills)
    for query in ("word0", "body1 shared", "word2 word0", "WORD0 ", "nothing", "body1 shared"):
        assert [hit.skill.id for hit in index.search(query)] == ranked(skills, query)
    assert len(index._ranked) == 2
    assert index.search("body1 shared") is index.search(" BODY1 shared")


# --- excerpts ---------------------------------------------------------------------------------


def hit_of(target, query: str):
    [hit] = SearchIndex([target]).search(query)
    return hit


def test_the_excerpt_comes_from_the_description_around_its_earliest_matched_word() -> None:
    description = "a" * 100 + " Presentations here " + "b" * 100 + " other"
    hit = hit_of(skill("s", description=description, body="presentation in the body"), "other presentation")
    excerpt = hit.excerpt(20)
    assert len(excerpt) == 20 and "Present" in excerpt and excerpt in description


def test_the_excerpt_is_centred_on_a_whole_word_not_a_substring() -> None:
    description = "format " * 30 + "form " + "x" * 200
    excerpt = hit_of(skill("s", description=description), "form").excerpt(11)
    assert excerpt == "at form xxx"


def test_the_excerpt_falls_back_to_the_body_around_its_earliest_matched_word() -> None:
    body = "x" * 300 + " Needles " + "y" * 300
    hit = hit_of(skill("s", description="Nothing here.", body=body), "needle")
    excerpt = hit.excerpt(30)
    assert len(excerpt) == 30 and "Needles" in excerpt and excerpt in body


def test_the_excerpt_is_the_start_of_the_description_when_no_text_matched() -> None:
    description = "Starts here and goes on " + "z" * 300
    hit = hit_of(skill("s", description=description, tags=("tagged",)), "tagged")
    assert hit.excerpt(25) == description[:25]


def test_a_short_description_is_its_own_excerpt() -> None:
    assert hit_of(skill("s", description="Short text."), "text").excerpt(240) == "Short text."


def test_the_excerpt_keeps_the_original_case_where_case_folding_changes_the_length() -> None:
    description = "İ" * 50 + " STRASSE needle " + "z" * 50
    excerpt = hit_of(skill("s", description=description), "needle").excerpt(10)
    assert "needle" in excerpt and len(excerpt) == 10
    excerpt = hit_of(skill("s", description=description), "straße").excerpt(10)
    assert "STRASSE" in excerpt


def test_the_excerpt_never_exceeds_the_limit() -> None:
    target = skill("s", description="Intro. The NEEDLE is here. " + "Outro " * 50, body="needle " * 80)
    for limit in (1, 5, 16, 59, 240, 1000):
        assert len(hit_of(target, "needle").excerpt(limit)) <= limit
    assert "NEEDLE" in hit_of(target, "needle").excerpt(16)

"""Search quality on the project's own evaluation set (docs/benchmarks.md, "Search quality").

    .venv/bin/python -m bench.search.run                      # make bench-search: current ranking
    .venv/bin/python -m bench.search.run --ranker baseline    # the old substring ranking
    .venv/bin/python -m bench.search.run --failures           # also list the queries that miss
    .venv/bin/python -m bench.search.run --ranker text        # diagnostic: the text score alone

The corpus is bench/search/corpus/<id>/SKILL.md (skills written for this benchmark in the
shape of public skill repositories: open-format frontmatter, most without tags or keywords);
the queries and their right answers are bench/search/queries.txt, of four kinds: single
keywords, task phrases, paraphrases, and queries with no good answer.

Scoring, per query, then averaged per kind and over all queries:

- a query with right answers: top-1 is 1 when the first result is one of them; reciprocal
  rank (MRR@10) is 1/r for the best-placed right answer at rank r <= 10, else 0; recall@5 is
  the share of its right answers (at most 5 counted) found among the first 5 results;
- a query with no good answer is answered well when no result among the first 10 is a
  confident match, i.e. matches more than half of the query's terms (read from the result's
  match reasons, as a client could; an exact id or name match is a full match). Then all
  three figures are 1 for it, else 0. An empty result list is the best answer.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from bench.search.setup import configure

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
QUERIES = HERE / "queries.txt"
KINDS = ("keyword", "task", "paraphrase", "none")


@dataclass(frozen=True)
class Case:
    kind: str
    query: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    case: Case
    ranked: list[str]  # ids, best first (the first 10)
    coverage: list[float]  # per ranked result: share of the query's terms it matches
    tiers: list[str]  # per ranked result: the first tier it matched by (exact, tag, keyword, text)
    top1: float
    rr: float
    recall: float


def load_corpus() -> list:
    from catalog.index import SkillEntry

    skills = []
    for path in sorted(CORPUS.glob("*/SKILL.md")):
        text = path.read_text(encoding="utf-8")
        _, front, body = text.split("---\n", 2)
        meta = yaml.safe_load(front)
        skills.append(
            SkillEntry(
                id=path.parent.name,
                name=meta["name"],
                description=meta["description"],
                version="1.0.0",
                tags=tuple(meta.get("tags", ())),
                keywords=tuple(meta.get("keywords", ())),
                requires=(),
                required_zdr=False,
                content_hash="0" * 64,
                instructions=body,
                skill_md_sha256="0" * 64,
                skill_md_size=len(text.encode()),
                files=(),
            )
        )
    return skills


def load_queries() -> list[Case]:
    cases = []
    for line in QUERIES.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, query, answers = (part.strip() for part in line.split("|"))
        assert kind in KINDS, line
        cases.append(Case(kind, query, () if answers == "-" else tuple(answers.split())))
    return cases


class Current:
    """The product's ranking (catalog.search)."""

    def __init__(self, skills: list) -> None:
        from catalog.search import SearchIndex

        self.index = SearchIndex(skills)

    def results(self, query: str) -> list[Result]:
        from catalog.search import parse_query

        terms = [term.word for term in parse_query(query).terms]
        return [result(hit.skill.id, hit.match_reasons(), terms) for hit in self.index.search(query)[:10]]


class TextOnly:
    """A diagnostic, not a ranking the product has: the BM25F text score of catalog.textindex
    alone, without the tag and keyword tiers (tags and keywords read as words of the name)."""

    def __init__(self, skills: list) -> None:
        from catalog.textindex import TextIndex

        self.skills = skills
        self.text = TextIndex(
            [(" ".join((s.name, *s.tags, *s.keywords)), s.description, s.instructions) for s in skills]
        )

    def results(self, query: str) -> list[Result]:
        from catalog.search import parse_query

        terms = parse_query(query).terms
        total: dict[int, int] = {}
        for term in terms:
            for position, value in self.text.scores(term.stem).items():
                total[position] = total.get(position, 0) + value
        ranked = sorted(total, key=lambda position: (-total[position], self.skills[position].id))[:10]
        return [
            (
                self.skills[position].id,
                sum(any(self.text.fields_holding(t.stem, position)) for t in terms) / len(terms),
                "text",
            )
            for position in ranked
        ]


class Baseline:
    """The substring ranking of before (bench/search/baseline.py)."""

    def __init__(self, skills: list) -> None:
        from bench.search.baseline import BaselineIndex

        self.index = BaselineIndex(skills)

    def results(self, query: str) -> list[Result]:
        terms = list(dict.fromkeys(self.index.terms(query)))
        return [result(hit.skill.id, hit.reasons, terms) for hit in self.index.search(query)[:10]]


Result = tuple[str, float, str]  # id, coverage, tier


def result(skill_id: str, reasons: list[tuple[str, str]], terms: list[str]) -> Result:
    rules = {rule for rule, _ in reasons}
    tier = next((rule for rule in ("exact", "tag", "keyword") if rule in rules), "text")
    return skill_id, coverage(reasons, terms), tier


def coverage(reasons: list[tuple[str, str]], terms: list[str]) -> float:
    if any(rule == "exact" for rule, _ in reasons):
        return 1.0
    if not terms:
        return 0.0
    matched = {term for _, term in reasons} & set(terms)
    return len(matched) / len(terms)


def score(case: Case, results: list[Result]) -> Outcome:
    ranked = [skill_id for skill_id, _, _ in results]
    covered = [share for _, share, _ in results]
    tiers = [tier for _, _, tier in results]
    if not case.answers:
        good = float(all(share <= 0.5 for share in covered))
        return Outcome(case, ranked, covered, tiers, good, good, good)
    ranks = [rank for rank, skill_id in enumerate(ranked, 1) if skill_id in case.answers]
    top1 = float(bool(ranks) and ranks[0] == 1)
    rr = 1 / ranks[0] if ranks else 0.0
    wanted = case.answers[:5]
    recall = len(set(ranked[:5]) & set(case.answers)) / len(wanted)
    return Outcome(case, ranked, covered, tiers, top1, rr, min(recall, 1.0))


def evaluate(ranker_name: str) -> list[Outcome]:
    configure()
    skills = load_corpus()
    ids = {skill.id for skill in skills}
    cases = load_queries()
    for case in cases:
        missing = set(case.answers) - ids
        assert not missing, (case.query, missing)
    ranker = RANKERS[ranker_name](skills)
    return [score(case, ranker.results(case.query)) for case in cases]


RANKERS = {"current": Current, "baseline": Baseline, "text": TextOnly}


def table(outcomes: list[Outcome]) -> str:
    lines = ["| kind | queries | top-1 | MRR@10 | recall@5 |", "|---|---:|---:|---:|---:|"]
    for kind in (*KINDS, "overall"):
        chosen = [o for o in outcomes if kind == "overall" or o.case.kind == kind]
        if not chosen:
            continue
        n = len(chosen)
        lines.append(
            f"| {kind} | {n} | {sum(o.top1 for o in chosen) / n:.2f} | "
            f"{sum(o.rr for o in chosen) / n:.2f} | {sum(o.recall for o in chosen) / n:.2f} |"
        )
    return "\n".join(lines)


def failures(outcomes: list[Outcome]) -> str:
    """Each query whose first result is wrong: where the right answer is, the first three
    results, and the tier each matched by (a skill ahead of the right one only by a tag or
    keyword tier is a miss of the tiers, not of the text score)."""
    lines = []
    for o in outcomes:
        if o.top1 == 1.0:
            continue
        shown = [f"{s} [{t}]" for s, t in zip(o.ranked[:3], o.tiers[:3], strict=True)]
        first = ", ".join(shown) or "(none)"
        if o.case.answers:
            rank = next((r for r, s in enumerate(o.ranked, 1) if s in o.case.answers), None)
            where = "right answer not in the first 10"
            if rank:
                where = f"right answer at {rank} [{o.tiers[rank - 1]}]"
        else:
            where = f"confident match: {[s for s, c in zip(o.ranked, o.coverage, strict=True) if c > 0.5]}"
        lines.append(f"- [{o.case.kind}] {o.case.query!r}: {where}; first: {first}")
    return "\n".join(lines) or "(none)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranker", choices=sorted(RANKERS), default="current")
    parser.add_argument("--failures", action="store_true", help="list the queries whose first result misses")
    args = parser.parse_args(argv)
    outcomes = evaluate(args.ranker)
    skills = len(load_corpus())
    print(f"Search quality, {args.ranker} ranking: {len(outcomes)} queries over {skills} skills\n")
    print(table(outcomes))
    if args.failures:
        print("\nMisses:\n" + failures(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())

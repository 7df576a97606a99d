"""How large each answer of /mcp is, against what a real client hands its model whole.

    .venv/bin/python -m bench.answer_sizes [--skills 300] [--out FILE.json]
    make bench-sizes

Four corpora, each published into its own temporary SQLite database in a child process:
the bench corpus of each dialect (`python -m bench.corpus build`, seed 7), "maximal" (skills
whose id, name and description are at their bounds, with eight tags and eight keywords:
tests/support/maximal.py), and "huge" (one skill whose SKILL.md is max_skill_md_bytes, with
files larger than a page, and one of max_files_per_skill files). Every tool answer is asked
for at the default limits and at the maximum limits, plus resources/list, resources/read and
the extension's skills/list.

For each answer: `model` is the characters of the JSON a client hands its model (Claude Code
and Codex hand it structuredContent serialized; OpenCode the text content, which is the
same JSON), `bytes` the UTF-8 bytes of that JSON, `tokens` the estimate of
mcpapi.answer_size (bytes / 3, rounded up: no tokenizer is installed offline), and `wire`
the bytes of the whole JSON-RPC response (structuredContent and its text copy, escaped).
The report is the table of docs/benchmarks.md, "Answer sizes".
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

PROJECT_DIR = Path(__file__).resolve().parent.parent
TOKEN = "bench-answer-sizes-token"
CORPORA = ("registry", "open", "maximal", "huge")


class Client:
    def __init__(self) -> None:
        from django.test import Client as DjangoClient

        self.http = DjangoClient()
        self.ids = 0

    def rpc(self, method: str, params: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
        self.ids += 1
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}
        response = self.http.post(
            "/mcp",
            data=json.dumps(body),
            content_type="application/json",
            headers={"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {TOKEN}"},
        )
        assert response.status_code == 200, response.content[:300]
        reply = response.json()
        assert "result" in reply, reply
        return response.content, reply["result"]


def _row(corpus: str, answer: str, wire: bytes, seen: Any, items: str) -> dict[str, Any]:
    from mcpapi.answer_size import estimated_tokens, model_text

    text = model_text(seen)
    return {
        "corpus": corpus,
        "answer": answer,
        "items": items,
        "model": len(text),
        "bytes": len(text.encode()),
        "tokens": estimated_tokens(text),
        "wire": len(wire),
    }


def _measure(corpus: str) -> list[dict[str, Any]]:
    """Every answer of the published corpus; runs in the child process."""
    from catalog import index as catalog_index

    view = catalog_index.active_view(zdr_cleared=True)
    assert view is not None
    config = view.config
    client = Client()
    rows: list[dict[str, Any]] = []

    def tool(answer: str, name: str, count_key: str = "", **arguments: Any) -> None:
        wire, result = client.rpc("tools/call", {"name": name, "arguments": arguments})
        structured = result["structuredContent"]
        assert result["isError"] is False, structured
        items = str(len(structured[count_key])) if count_key else ""
        rows.append(_row(corpus, answer, wire, structured, items))

    def protocol(answer: str, method: str, params: dict[str, Any], count_key: str = "") -> None:
        wire, result = client.rpc(method, params)
        rows.append(_row(corpus, answer, wire, result, str(len(result[count_key])) if count_key else ""))

    pagination, search, page_bytes = config.pagination, config.search, config.file_page_bytes
    tool(f"skills_list (default {pagination.default_limit})", "skills_list", "skills")
    tool(f"skills_list (limit {pagination.max_limit})", "skills_list", "skills", limit=pagination.max_limit)
    query = "report export check"
    tool(f"skills_search (default {search.default_limit})", "skills_search", "results", query=query)
    most = search.max_limit
    tool(f"skills_search (limit {most})", "skills_search", "results", query=query, limit=most)
    # The skill with the largest SKILL.md, and the first page of its files (else of the largest).
    largest = max(view.skills, key=lambda skill: skill.skill_md_size)
    tool(f"skills_get (SKILL.md {largest.skill_md_size} B)", "skills_get", id=largest.id)
    most_files = max(view.skills, key=lambda skill: len(skill.files))
    if most_files is not largest and len(most_files.files) > 100:
        tool(f"skills_get ({len(most_files.files)} files)", "skills_get", id=most_files.id)
    files = sorted(
        ((entry.size, skill.id, entry.path) for skill in view.skills for entry in skill.files), reverse=True
    )
    picked = [file for file in files if file[1] == largest.id] or files[:1]
    for size, skill_id, path in picked[:3]:
        answer = f"skills_get_file ({path}, {size} B; page {page_bytes} B)"
        tool(answer, "skills_get_file", id=skill_id, path=path)
    protocol(f"resources/list (page {pagination.max_limit})", "resources/list", {}, "resources")
    protocol("resources/read (largest SKILL.md)", "resources/read", {"uri": f"skill://{largest.id}/SKILL.md"})
    protocol(f"skills/list (page {pagination.default_limit})", "skills/list", {}, "skills")
    return rows


def _child(corpus: str, repo: Path) -> None:
    from bench.inprocess import setup_published

    with tempfile.TemporaryDirectory() as tmp:
        setup_published(Path(tmp) / "db.sqlite3", repo, {"SKILLS_ZDR_TOKENS": TOKEN, "LOG_LEVEL": "ERROR"})
        print(json.dumps(_measure(corpus)))


def _build(corpus: str, root: Path, skills: int) -> None:
    if corpus in ("registry", "open"):
        from bench.corpus import build

        build(root, skills, seed=7, dialect=corpus)
        return
    from tests.support.maximal import huge_skill, many_files_skill, maximal_skills
    from tests.support.repos import DEFAULT_CONFIG, SkillRepo

    repo = SkillRepo(root)
    limits = DEFAULT_CONFIG["limits"]
    if corpus == "maximal":
        written = maximal_skills(skills)
    else:
        written = huge_skill(limits["max_skill_md_bytes"], 3 * DEFAULT_CONFIG["file_page_bytes"])
        written |= many_files_skill(limits["max_files_per_skill"])
    for path, text in written.items():
        repo.write(path, text)
    repo.commit("answer sizes corpus")


def report(rows: list[dict[str, Any]]) -> str:
    from mcpapi.answer_size import ANSWER_TOKENS

    lines = [
        "| corpus | answer | items | model chars | bytes | est. tokens | wire bytes | fits |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        fits = "yes" if row["tokens"] <= ANSWER_TOKENS else "**no**"
        lines.append(
            f"| {row['corpus']} | {row['answer']} | {row['items']} | {row['model']:,} | {row['bytes']:,} "
            f"| {row['tokens']:,} | {row['wire']:,} | {fits} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=300)
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", nargs=2, metavar=("CORPUS", "REPO"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child[0], Path(args.child[1]))
        return 0
    sys.path.insert(0, str(PROJECT_DIR))
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in args.corpora.split(","):
            root = Path(tmp) / corpus
            _build(corpus, root, args.skills)
            done = subprocess.run(
                [sys.executable, "-m", "bench.answer_sizes", "--child", corpus, str(root)],
                cwd=PROJECT_DIR,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                return 1
            rows += json.loads(done.stdout.strip().splitlines()[-1])
    print(report(rows))
    if args.out:
        args.out.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

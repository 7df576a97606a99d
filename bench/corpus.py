"""A deterministic, seeded corpus of skills committed into a temporary git repository.

    python -m bench.corpus build  --skills 1000 --seed 7 --out /tmp/corpus [--dialect open|registry|mixed]
    python -m bench.corpus change --out /tmp/corpus          # one skill: new content + version bump

The same (skills, seed) always gives byte-identical files, so the same commit
tree (commit SHAs differ only through the fixed author date, which is pinned
too). Every skill is valid (docs/reference.md#skill-format); the registry dialect's are
described in bench/corpus_registry.py. Everything is ASCII apart from an occasional em
dash, so byte and character sizes are close but not equal (paging code sees multi-byte
characters).

`--dialect open` writes the open Agent Skills dialect instead, shaped like the public
skill repositories (bench/corpus_open.py: category folders, no `files:` lists, versions
only sometimes, binary assets), and no registry.config.json (the defaults do);
`--dialect mixed` writes half of each into one repository. `registry` (the default)
writes exactly what it always did.

Speed: files are written straight to disk and committed with one `git add -A`
and one `git commit` (`--method add`), or streamed into `git fast-import`
without touching the work tree (`--method fast-import`, then checked out with
`git read-tree` + `git checkout-index` only when asked). `add` is the default;
at 10,000 skills both take a few seconds (see docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

from bench.corpus_model import Corpus, FileInfo, SkillInfo
from bench.corpus_open import generate_open_skills
from bench.corpus_registry import BASE_CONFIG_PATH, generate_skills, registry_config
from bench.corpus_text import Writer

__all__ = ["Corpus", "FileInfo", "SkillInfo", "build", "change_one", "git", "load"]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def generate(dialect: str, count: int, seed: int) -> tuple[list[SkillInfo], dict[str, str | bytes]]:
    """The skills of one dialect, or half of each ("mixed", registry first), ids unique."""
    if dialect == "registry":
        return generate_skills(count, seed)
    used: set[str] = set()
    infos, files = generate_skills(count // 2, seed, used) if dialect == "mixed" else ([], {})
    open_infos, open_files = generate_open_skills(count - len(infos), seed, used)
    return infos + open_infos, {**files, **open_files}


def config_file(dialect: str, skills: int) -> str | None:
    """registry.config.json's text, or None: a repository of the open dialect has none
    unless the defaults cannot hold it, and then names only what it changes."""
    if dialect != "open":
        return json.dumps(registry_config(skills), indent=2) + "\n"
    if skills <= json.loads(BASE_CONFIG_PATH.read_text())["limits"]["max_skills"]:
        return None
    return json.dumps({"limits": {"max_skills": skills}}) + "\n"


def _bytes(content: str | bytes) -> bytes:
    return content if isinstance(content, bytes) else content.encode()


def git(root: Path, *args: str, stdin: bytes | None = None, timeout: float = 600) -> str:
    env = {**os.environ, **GIT_ENV}
    result = subprocess.run(
        ["git", "-C", str(root), *args],
        input=stdin,
        capture_output=True,
        check=False,
        env=env,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout.decode().strip()


def _init_repo(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise SystemExit(f"{root}: not empty (the corpus is built into a fresh directory)")
    git(root, "init", "-q", "-b", "main")
    for key, value in (("commit.gpgsign", "false"), ("gc.auto", "0"), ("core.fsync", "none")):
        git(root, "config", key, value)


def _commit_with_add(root: Path, files: dict[str, str | bytes]) -> str:
    made: set[Path] = set()
    for rel, content in files.items():
        target = root / rel
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        target.write_bytes(_bytes(content))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"corpus: {len(files)} files")
    return git(root, "rev-parse", "HEAD")


def _commit_with_fast_import(root: Path, files: dict[str, str | bytes], checkout: bool) -> str:
    chunks: list[bytes] = []
    for mark, content in enumerate(files.values(), start=1):
        data = _bytes(content)
        chunks.append(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
    message = f"corpus: {len(files)} files".encode()
    chunks.append(
        b"commit refs/heads/main\n"
        b"committer Bench <bench@example.invalid> 1735689600 +0000\n"
        b"data %d\n%s\n" % (len(message), message)
    )
    for mark, rel in enumerate(files, start=1):
        chunks.append(b"M 100644 :%d %s\n" % (mark, rel.encode()))
    chunks.append(b"\n")
    git(root, "fast-import", "--quiet", "--force", stdin=b"".join(chunks))
    if checkout:
        git(root, "read-tree", "main")
        git(root, "checkout-index", "-a", "-f")
    return git(root, "rev-parse", "main")


def build(
    root: Path,
    skills: int,
    seed: int = 7,
    method: str = "add",
    checkout: bool = True,
    dialect: str = "registry",
) -> Corpus:
    """Generate `skills` skills with `seed`, write them and commit once; returns what was made."""
    started = time.perf_counter()
    root = Path(root)
    _init_repo(root)
    infos, files = generate(dialect, skills, seed)
    config = config_file(dialect, skills)
    if config is not None:
        files["registry.config.json"] = config
    generated = time.perf_counter()
    if method == "add":
        sha = _commit_with_add(root, files)
    elif method == "fast-import":
        sha = _commit_with_fast_import(root, files, checkout)
    else:
        raise ValueError(f"unknown method {method!r}")
    corpus = Corpus(
        root=str(root),
        skills=skills,
        seed=seed,
        sha=sha,
        build_seconds=round(time.perf_counter() - started, 3),
        generate_seconds=round(generated - started, 3),
        method=method,
        total_bytes=sum(len(_bytes(content)) for content in files.values()),
        file_count=len(files),
        zdr_count=sum(1 for info in infos if info.required_zdr),
        entries=infos,
        dialect=dialect,
    )
    (root / ".git" / "bench-corpus.json").write_text(json.dumps(asdict(corpus)))
    return corpus


def load(root: Path) -> Corpus:
    data = json.loads((Path(root) / ".git" / "bench-corpus.json").read_text())
    entries = [
        SkillInfo(
            **{
                **e,
                "files": [FileInfo(**f) for f in e["files"]],
                "omitted": [FileInfo(**f) for f in e.get("omitted", [])],
            }
        )
        for e in data.pop("entries")
    ]
    return Corpus(**data, entries=entries)


def bump_patch(version: str) -> str:
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?", version)
    if not match:
        raise ValueError(f"not a version this generator writes: {version!r}")
    major, minor, patch, pre = match.groups()
    # 1.2.3-rc.1 < 1.2.3 (the release) and 1.2.3 < 1.2.4: either way a plain patch bump is greater.
    return f"{major}.{minor}.{patch}" if pre else f"{major}.{minor}.{int(patch) + 1}"


# The version lines the generators write: top level, or inside a flow-style `metadata`.
_VERSION = re.compile(r'^version: "([^"]+)"$|(?<=[{ ])"version": "([^"]+)"', flags=re.MULTILINE)


def change_one(root: Path, skill_id: str | None = None) -> dict:
    """Edit one skill (a new paragraph in its body, and a version bump when it has a version)
    and commit it on top.

    Works on a checked-out work tree; picks the middle skill by id unless told which.
    Repeatable: each call bumps the version the file has now.
    """
    root = Path(root)
    started = time.perf_counter()
    folders = {entry.id: entry.folder for entry in load(root).entries}
    if skill_id is None:
        ids = sorted(folders)
        skill_id = ids[len(ids) // 2]
    rel = f"{folders[skill_id]}/SKILL.md"
    path = root / rel
    text = path.read_text(encoding="utf-8")
    match = _VERSION.search(text)
    old = new = None
    if match:
        old = match.group(1) or match.group(2)
        new = bump_patch(old)
        start, end = match.span(1) if match.group(1) else match.span(2)
        text = text[:start] + new + text[end:]
    label = new or "an update"
    # Seeded by what changes each time, so repeated changes write different text.
    writer = Writer(random.Random(f"{skill_id}:{new}" if new else f"{skill_id}:{len(text)}"))
    text = text.rstrip("\n") + "\n\n## Changes in " + label + "\n\n" + writer.paragraph() + "\n"
    path.write_bytes(text.encode())
    git(root, "add", "--", rel)
    git(root, "commit", "-q", "-m", f"{skill_id}: {label}", "--", rel)
    return {
        "id": skill_id,
        "old_version": old,
        "version": new,
        "sha": git(root, "rev-parse", "HEAD"),
        "seconds": round(time.perf_counter() - started, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("build", help="generate the corpus into a fresh directory and commit it")
    make.add_argument("--skills", type=int, default=1000)
    make.add_argument("--seed", type=int, default=7)
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--method", choices=("add", "fast-import"), default="add")
    make.add_argument("--dialect", choices=("registry", "open", "mixed"), default="registry")
    make.add_argument(
        "--no-checkout", action="store_true", help="fast-import only: leave the work tree empty"
    )
    edit = sub.add_parser("change", help="modify one skill and commit on top")
    edit.add_argument("--out", type=Path, required=True)
    edit.add_argument("--id", default=None)
    args = parser.parse_args(argv)
    if args.command == "build":
        corpus = build(
            args.out, args.skills, args.seed, args.method, checkout=not args.no_checkout, dialect=args.dialect
        )
        print(json.dumps(corpus.summary(), indent=2))
    else:
        print(json.dumps(change_one(args.out, args.id), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A deterministic, seeded corpus of skills committed into a temporary git repository.

    python -m bench.corpus build  --skills 1000 --seed 7 --out /tmp/corpus
    python -m bench.corpus change --out /tmp/corpus          # one skill: new content + version bump

The same (skills, seed) always gives byte-identical files, so the same commit
tree (commit SHAs differ only through the fixed author date, which is pinned
too). Every skill is valid (docs/reference.md#skill-format): frontmatter with
schema_version, id, name, description, version, tags, keywords, files, required_zdr
(and sometimes requires), written by tests/support/skillmd.py; a Markdown body of
1-8 KB in total with the frontmatter; 0-4 supporting files of 0.5-20 KB under
references/, templates/ or scripts/.
Everything is ASCII apart from an occasional em dash, so byte and character
sizes are close but not equal (paging code sees multi-byte characters).

Speed: files are written straight to disk and committed with one `git add -A`
and one `git commit` (`--method add`), or streamed into `git fast-import`
without touching the work tree (`--method fast-import`, then checked out with
`git read-tree` + `git checkout-index` only when asked). `add` is the default;
at 10,000 skills both take a few seconds (see docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.corpus_text import ADJECTIVES, KEYWORDS, NOUNS, TAGS, VERBS, Writer
from tests.support.project import PROJECT_DIR
from tests.support.skillmd import render_skill_md

BASE_CONFIG_PATH = PROJECT_DIR / "registry.config.json"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


SCRIPT_EXTENSIONS = (".sh", ".py", ".js", ".ts", ".rb")
TEXT_EXTENSIONS = (".md", ".txt")
# How many supporting files a skill has: 0..4, most have one or two.
FILE_COUNT_WEIGHTS = (25, 30, 25, 12, 8)
ZDR_RATE = 0.05


@dataclass
class FileInfo:
    path: str
    size: int


@dataclass
class SkillInfo:
    id: str
    version: str
    required_zdr: bool
    skill_md_size: int
    tags: list[str]
    files: list[FileInfo] = field(default_factory=list)


@dataclass
class Corpus:
    root: str
    skills: int
    seed: int
    sha: str
    build_seconds: float
    generate_seconds: float
    method: str
    total_bytes: int
    file_count: int
    zdr_count: int
    entries: list[SkillInfo]

    def summary(self) -> dict:
        data = {key: value for key, value in asdict(self).items() if key != "entries"}
        sizes = sorted(entry.skill_md_size for entry in self.entries)
        file_sizes = sorted(f.size for entry in self.entries for f in entry.files)
        data["skill_md_bytes_median"] = sizes[len(sizes) // 2] if sizes else 0
        data["file_bytes_median"] = file_sizes[len(file_sizes) // 2] if file_sizes else 0
        return data


def _log_uniform(rng: random.Random, low: int, high: int) -> int:
    return int(math.exp(rng.uniform(math.log(low), math.log(high))))


def skill_md_text(meta: dict, body: str) -> str:
    """SKILL.md of the registry dialect: schema_version first, `requires` only when there are some."""
    ordered = {"schema_version": 1, **meta}
    if not ordered["requires"]:
        del ordered["requires"]
    return render_skill_md(ordered, body)


def generate_skills(count: int, seed: int) -> tuple[list[SkillInfo], dict[str, str]]:
    """Every skill's files as {repo path: text}, plus what the bench needs to know of them."""
    rng = random.Random(seed)
    writer = Writer(rng)
    used: set[str] = set()
    infos: list[SkillInfo] = []
    files: dict[str, str] = {}
    for _ in range(count):
        while True:
            skill_id = f"{rng.choice(VERBS)}-{rng.choice(ADJECTIVES)}-{rng.choice(NOUNS)}"
            if skill_id not in used:
                break
        used.add(skill_id)
        verb, _, noun = skill_id.partition("-")
        tags = rng.sample(TAGS, rng.randint(0, 5))
        writer.topic = tags
        keywords = rng.sample(KEYWORDS, rng.randint(0, 6))
        phrase = f"{rng.choice(VERBS)} {rng.choice(NOUNS)}"
        if keywords and rng.random() < 0.3 and phrase not in keywords:
            keywords.append(phrase)
        zdr = rng.random() < ZDR_RATE
        version = f"{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 30)}"
        if rng.random() < 0.05:
            version += f"-rc.{rng.randint(1, 5)}"
        supporting: dict[str, str] = {}
        for _ in range(rng.choices(range(5), weights=FILE_COUNT_WEIGHTS)[0]):
            folder = rng.choice(("references", "templates", "scripts"))
            ext = rng.choice(SCRIPT_EXTENSIONS if folder == "scripts" else TEXT_EXTENSIONS)
            nested = f"{rng.choice(NOUNS)}/" if rng.random() < 0.1 else ""
            path = f"{folder}/{nested}{rng.choice(VERBS)}-{rng.choice(NOUNS)}{ext}"
            if path in supporting:
                continue
            target = _log_uniform(rng, 512, 20 * 1024)
            if folder == "scripts":
                text = writer.script(ext, target)
            elif ext == ".md":
                text = writer.markdown(f"{rng.choice(VERBS).title()} {rng.choice(NOUNS)}", target)
            else:
                text = writer.plain_text(target)
            # Block-boundary cuts land below the target; pad up to the 0.5 KB floor if needed.
            while len(text.encode()) < 512:
                text += writer.paragraph() + "\n"
            supporting[path] = text
        name = f"{verb.replace('-', ' ').title()} {skill_id.split('-', 1)[1].replace('-', ' ')}"
        meta = {
            "id": skill_id,
            "name": name,
            "description": " ".join(
                [f"How to {verb} a {noun.replace('-', ' ')}:"]
                + [writer.sentence() for _ in range(rng.randint(1, 3))]
            )[:1024],
            "version": version,
            "tags": tags,
            "keywords": keywords,
            "requires": [writer.sentence()] if rng.random() < 0.2 else [],
            "files": sorted(supporting),
            "required_zdr": zdr,
        }
        target = _log_uniform(rng, 1024, 8 * 1024)
        head = skill_md_text(meta, "")
        body = writer.markdown(name, max(300, target - len(head.encode())))
        text = head + body
        while len(text.encode()) < 1024:
            text += "\n" + writer.paragraph() + "\n"
        files[f"skills/{skill_id}/SKILL.md"] = text
        for path, content in supporting.items():
            files[f"skills/{skill_id}/{path}"] = content
        infos.append(
            SkillInfo(
                id=skill_id,
                version=version,
                required_zdr=zdr,
                skill_md_size=len(text.encode()),
                tags=tags,
                files=[FileInfo(path, len(content.encode())) for path, content in sorted(supporting.items())],
            )
        )
    return infos, files


def registry_config(skills: int) -> dict:
    config = json.loads(BASE_CONFIG_PATH.read_text())
    config["limits"]["max_skills"] = max(10_000, skills)
    config["limits"]["max_files_per_skill"] = max(config["limits"]["max_files_per_skill"], 4)
    config["limits"]["max_skill_md_bytes"] = max(config["limits"]["max_skill_md_bytes"], 8 * 1024)
    config["limits"]["max_file_bytes"] = max(config["limits"]["max_file_bytes"], 20 * 1024)
    config["limits"]["max_skill_total_bytes"] = max(config["limits"]["max_skill_total_bytes"], 96 * 1024)
    return config


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


def _commit_with_add(root: Path, files: dict[str, str]) -> str:
    made: set[Path] = set()
    for rel, text in files.items():
        target = root / rel
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        target.write_bytes(text.encode())
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"corpus: {len(files)} files")
    return git(root, "rev-parse", "HEAD")


def _commit_with_fast_import(root: Path, files: dict[str, str], checkout: bool) -> str:
    chunks: list[bytes] = []
    for mark, text in enumerate(files.values(), start=1):
        data = text.encode()
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


def build(root: Path, skills: int, seed: int = 7, method: str = "add", checkout: bool = True) -> Corpus:
    """Generate `skills` skills with `seed`, write them and commit once; returns what was made."""
    started = time.perf_counter()
    root = Path(root)
    _init_repo(root)
    infos, files = generate_skills(skills, seed)
    files["registry.config.json"] = json.dumps(registry_config(skills), indent=2) + "\n"
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
        total_bytes=sum(len(text.encode()) for text in files.values()),
        file_count=len(files),
        zdr_count=sum(1 for info in infos if info.required_zdr),
        entries=infos,
    )
    (root / ".git" / "bench-corpus.json").write_text(json.dumps(asdict(corpus)))
    return corpus


def load(root: Path) -> Corpus:
    data = json.loads((Path(root) / ".git" / "bench-corpus.json").read_text())
    entries = [SkillInfo(**{**e, "files": [FileInfo(**f) for f in e["files"]]}) for e in data.pop("entries")]
    return Corpus(**data, entries=entries)


def bump_patch(version: str) -> str:
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?", version)
    if not match:
        raise ValueError(f"not a version this generator writes: {version!r}")
    major, minor, patch, pre = match.groups()
    # 1.2.3-rc.1 < 1.2.3 (the release) and 1.2.3 < 1.2.4: either way a plain patch bump is greater.
    return f"{major}.{minor}.{patch}" if pre else f"{major}.{minor}.{int(patch) + 1}"


def change_one(root: Path, skill_id: str | None = None) -> dict:
    """Edit one skill (a new paragraph in its body and a version bump) and commit it on top.

    Works on a checked-out work tree; picks the middle skill by id unless told which.
    Repeatable: each call bumps the version the file has now.
    """
    root = Path(root)
    started = time.perf_counter()
    if skill_id is None:
        ids = sorted(p.name for p in (root / "skills").iterdir())
        skill_id = ids[len(ids) // 2]
    rel = f"skills/{skill_id}/SKILL.md"
    path = root / rel
    text = path.read_text(encoding="utf-8")
    match = re.search(r'^version: "([^"]+)"$', text, flags=re.MULTILINE)
    if not match:
        raise SystemExit(f"{rel}: no version line this generator wrote")
    old = match.group(1)
    new = bump_patch(old)
    text = text[: match.start()] + f'version: "{new}"' + text[match.end() :]
    writer = Writer(random.Random(f"{skill_id}:{new}"))
    text = text.rstrip("\n") + "\n\n## Changes in " + new + "\n\n" + writer.paragraph() + "\n"
    path.write_bytes(text.encode())
    git(root, "add", "--", rel)
    git(root, "commit", "-q", "-m", f"{skill_id}: {new}", "--", rel)
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
    make.add_argument(
        "--no-checkout", action="store_true", help="fast-import only: leave the work tree empty"
    )
    edit = sub.add_parser("change", help="modify one skill and commit on top")
    edit.add_argument("--out", type=Path, required=True)
    edit.add_argument("--id", default=None)
    args = parser.parse_args(argv)
    if args.command == "build":
        corpus = build(args.out, args.skills, args.seed, args.method, checkout=not args.no_checkout)
        print(json.dumps(corpus.summary(), indent=2))
    else:
        print(json.dumps(change_one(args.out, args.id), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

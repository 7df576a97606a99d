"""The registry dialect's skills of the benchmark corpus (bench/corpus.py): frontmatter with
schema_version, id, name, description, version, tags, keywords, files, required_zdr (and
sometimes requires), written by tests/support/skillmd.py; a Markdown body of 1-8 KB in total
with the frontmatter; 0-4 supporting files of 0.5-20 KB under references/, templates/ or
scripts/. One random.Random per seed: the same (count, seed) always writes the same bytes.
"""

from __future__ import annotations

import json
import random

from bench.corpus_model import FileInfo, SkillInfo
from bench.corpus_text import KEYWORDS, NOUNS, TAGS, VERBS, Writer, fresh_id, log_uniform
from tests.support.project import PROJECT_DIR
from tests.support.skillmd import render_skill_md

BASE_CONFIG_PATH = PROJECT_DIR / "registry.config.json"
SCRIPT_EXTENSIONS = (".sh", ".py", ".js", ".ts", ".rb")
TEXT_EXTENSIONS = (".md", ".txt")
# How many supporting files a skill has: 0..4, most have one or two.
FILE_COUNT_WEIGHTS = (25, 30, 25, 12, 8)
ZDR_RATE = 0.05


def skill_md_text(meta: dict, body: str) -> str:
    """SKILL.md of the registry dialect: schema_version first, `requires` only when there are some."""
    ordered = {"schema_version": 1, **meta}
    if not ordered["requires"]:
        del ordered["requires"]
    return render_skill_md(ordered, body)


def generate_skills(
    count: int, seed: int, used: set[str] | None = None
) -> tuple[list[SkillInfo], dict[str, str | bytes]]:
    """Every skill's files as {repo path: text}, plus what the bench needs to know of them.
    `used`: ids already taken (it gains these)."""
    rng = random.Random(seed)
    writer = Writer(rng)
    used = set() if used is None else used
    infos: list[SkillInfo] = []
    files: dict[str, str | bytes] = {}
    for _ in range(count):
        skill_id = fresh_id(rng, used)
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
            target = log_uniform(rng, 512, 20 * 1024)
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
        target = log_uniform(rng, 1024, 8 * 1024)
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

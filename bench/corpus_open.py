"""The open Agent Skills dialect's half of the benchmark corpus (bench/corpus.py --dialect
open|mixed): skills shaped like the public skill repositories, from the same words and the
same size distributions as the registry dialect's, so that the two cost the same to read.

Shape, per skill (docs/authoring.md):
- a folder under skills/, in a category most of the time (`.curated/`, `design/`,
  `platform/kubernetes/`, ...), its name the skill's `name`;
- frontmatter `name`, `description`, sometimes `license`, `metadata` (author, often a
  version, sometimes required_zdr), `allowed-tools`, a vendor key, a top-level version or
  tags; no `files:` list and no `schema_version`;
- 0-4 text files of 0.5-20 KB in the folders real skills use (references/, reference/,
  scripts/ with nested modules, templates/, top-level companions such as FORMS.md, a
  LICENSE.txt), drawn like the registry dialect's;
- binary assets in some skills (a PNG icon, a TTF font: omitted when published), and a
  README.md under skills/ outside every skill (a stray entry).
One random.Random drives it all: the same (count, seed) always writes the same bytes.
"""

from __future__ import annotations

import random

from bench.corpus_model import FileInfo, SkillInfo
from bench.corpus_text import KEYWORDS, NOUNS, TAGS, VERBS, Writer, fresh_id, log_uniform
from tests.support.skillmd import render_skill_md

CATEGORIES = (
    "",
    "",
    ".curated",
    ".curated",
    ".system",
    ".experimental",
    "design",
    "data",
    "platform/kubernetes",
    "platform/databases",
)
FILE_COUNT_WEIGHTS = (25, 30, 25, 12, 8)
ZDR_RATE = 0.05
ASSET_RATE = 0.15
LICENSES = ("MIT", "Apache-2.0", "Complete terms in LICENSE.txt")
STRAY_README = "# Skills\n\nEach folder below is a skill, grouped by category.\n"


def _text_file(rng: random.Random, writer: Writer, used_paths: set[str]) -> tuple[str, str] | None:
    """One supporting text file: (path in the skill, text), or None on a name clash."""
    kind = rng.choice(("references", "reference", "scripts", "templates", "top"))
    target = log_uniform(rng, 512, 20 * 1024)
    if kind == "scripts":
        ext = rng.choice((".py", ".sh", ".js"))
        nested = "lib/" if rng.random() < 0.2 else ""
        path = f"scripts/{nested}{rng.choice(VERBS)}_{rng.choice(NOUNS).replace('-', '_')}{ext}"
        text = writer.script(ext, target)
    elif kind == "top":
        path = rng.choice(("FORMS.md", "REFERENCE.md", "EXAMPLES.md", "GUIDE.md"))
        text = writer.markdown(path.removesuffix(".md").title(), target)
    else:
        ext = rng.choice((".md", ".md", ".txt", ".json")) if kind != "templates" else ".md"
        path = f"{kind}/{rng.choice(VERBS)}-{rng.choice(NOUNS)}{ext}"
        text = (
            writer.plain_text(target) if ext != ".md" else writer.markdown(rng.choice(NOUNS).title(), target)
        )
    while len(text.encode()) < 512:
        text += writer.paragraph() + "\n"
    if path in used_paths:
        return None
    return path, text


def _assets(rng: random.Random) -> dict[str, bytes]:
    """Binary files a skill carries for people, not models: never served."""
    found: dict[str, bytes] = {}
    if rng.random() < 0.7:
        found["assets/icon.png"] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + rng.randbytes(
            rng.randint(1024, 8192)
        )
    if rng.random() < 0.4:
        family = rng.choice(NOUNS).title().replace("-", "")
        found[f"assets/fonts/{family}-Regular.ttf"] = b"\x00\x01\x00\x00" + rng.randbytes(
            rng.randint(16 * 1024, 64 * 1024)
        )
    return found


def generate_open_skills(count: int, seed: int, used: set[str]) -> tuple[list[dict], dict[str, str | bytes]]:
    """`count` open-dialect skills with ids not in `used` (which gains them): per skill
    {id, path, version, required_zdr, skill_md_size, tags, files, omitted}, and every
    file as {repo path: text or bytes}."""
    rng = random.Random(f"open:{seed}")
    writer = Writer(rng)
    infos: list[SkillInfo] = []
    files: dict[str, str | bytes] = {"skills/README.md": STRAY_README}
    for _ in range(count):
        skill_id = fresh_id(rng, used)
        category = rng.choice(CATEGORIES)
        folder = f"skills/{category}/{skill_id}" if category else f"skills/{skill_id}"
        verb, _, noun = skill_id.partition("-")
        writer.topic = rng.sample(TAGS, rng.randint(0, 3))

        supporting: dict[str, str] = {}
        for _ in range(rng.choices(range(5), weights=FILE_COUNT_WEIGHTS)[0]):
            made = _text_file(rng, writer, set(supporting))
            if made is not None:
                supporting[made[0]] = made[1]
        meta: dict = {
            "name": skill_id,
            "description": " ".join(
                [f"Use when asked to {verb} a {noun.replace('-', ' ')}."]
                + [writer.sentence() for _ in range(rng.randint(1, 3))]
            )[:1024],
        }
        license_text = rng.choice(LICENSES) if rng.random() < 0.3 else None
        if license_text:
            meta["license"] = license_text
            if license_text.endswith("LICENSE.txt"):
                supporting["LICENSE.txt"] = writer.plain_text(log_uniform(rng, 600, 4000))
        version = f"{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 30)}"
        placement = rng.random()
        metadata: dict[str, str] = {}
        if rng.random() < 0.5:
            metadata["author"] = f"{rng.choice(NOUNS)}-team"
        if placement < 0.15:
            meta["version"] = version
        elif placement < 0.55:
            metadata["version"] = version
        else:
            version = ""
        zdr = rng.random() < ZDR_RATE
        if zdr and rng.random() < 0.5:
            metadata["required_zdr"] = "true"
        elif zdr:
            meta["required_zdr"] = True
        tags = rng.sample(TAGS, rng.randint(1, 4)) if rng.random() < 0.2 else []
        if tags:
            meta["tags"] = tags
            meta["keywords"] = rng.sample(KEYWORDS, rng.randint(0, 4))
        if metadata:
            meta["metadata"] = metadata
        if rng.random() < 0.2:
            meta["allowed-tools"] = rng.choice(("Read Write", "Bash(git:*) Read", "Bash Read Grep"))
        if rng.random() < 0.1:
            meta["argument-hint"] = f"<{rng.choice(NOUNS)}>"

        target = log_uniform(rng, 1024, 8 * 1024)
        head = render_skill_md(meta, "")
        body = writer.markdown(skill_id.replace("-", " ").capitalize(), max(300, target - len(head.encode())))
        text = head + body
        while len(text.encode()) < 1024:
            text += "\n" + writer.paragraph() + "\n"
        assets = _assets(rng) if rng.random() < ASSET_RATE else {}
        files[f"{folder}/SKILL.md"] = text
        for path, content in {**supporting, **assets}.items():
            files[f"{folder}/{path}"] = content
        infos.append(
            SkillInfo(
                id=skill_id,
                version=version or None,
                required_zdr=zdr,
                skill_md_size=len(text.encode()),
                tags=tags,
                files=[FileInfo(path, len(content.encode())) for path, content in sorted(supporting.items())],
                path=folder,
                omitted=[FileInfo(path, len(content)) for path, content in sorted(assets.items())],
            )
        )
    return infos, files

"""Skills repositories shaped like the public open Agent Skills ones (invented content):
category folders (dot-named ones too), plugin folders with manifests, binary assets, top-level
companion documents, a singular `reference/` folder, nested scripts, vendor keys, skills with
and without versions, ZDR in both open spellings, both dialects side by side, strays, CRLF and
a byte-order mark. Each fixture knows what must be served, omitted and warned about.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from tests.support.repos import DEFAULT_CONFIG, SkillRepo

# A font's first bytes (sfnt version 1.0, table count, search range...) and a table tag:
# NUL bytes at once, as in every TrueType file.
FAKE_TTF = b"\x00\x01\x00\x00\x00\x0b\x00\x80\x00\x03\x00\x30OS/2\x8e\x4a\x91\x5c" + bytes(range(64))
# A PNG signature and the start of its IHDR chunk (a 1x1 image).
FAKE_PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
FAKE_PYC = b"\xcb\r\r\n\x00\x00\x00\x00\x12\x34\x56\x67\xe3\x00\x00\x00"
FAKE_ZIP = b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"\xff" * 12
LATIN1_TEXT = b"caf\xe9 cr\xe8me\n"  # text, but not UTF-8


@dataclass(frozen=True, slots=True)
class Link:
    """A symlink to `target` (relative to the link's folder)."""

    target: str


Content = str | bytes | Link


@dataclass(frozen=True, slots=True)
class ExpectedSkill:
    id: str
    path: str
    version: str | None = None
    required_zdr: bool = False
    omitted: Mapping[str, str] = field(default_factory=dict)  # path -> a word of its reason


@dataclass(frozen=True, slots=True)
class OpenFixture:
    name: str
    files: Mapping[str, Content]  # repository path -> content
    skills: tuple[ExpectedSkill, ...]
    strays: frozenset[str]  # paths of the stray_entry warnings
    skills_dir: str = "skills"

    def build(self, repo: SkillRepo, **config: Any) -> str:
        """Write the fixture into `repo` (its skills/ and config replaced; `config` keys
        override the defaults) and commit it."""
        repo.remove("skills")
        repo.write_config(dict(DEFAULT_CONFIG, skills_dir=self.skills_dir, **config))
        for path, content in self.files.items():
            if isinstance(content, Link):
                link = repo.root / path
                link.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(content.target, link)
            else:
                repo.write(path, content)
        return repo.commit(f"fixture {self.name}")

    def skill(self, skill_id: str) -> ExpectedSkill:
        return next(skill for skill in self.skills if skill.id == skill_id)

    def raw(self, skill: ExpectedSkill, rel: str) -> bytes:
        content = self.files[f"{skill.path}/{rel}"]
        assert not isinstance(content, Link)
        return content if isinstance(content, bytes) else content.encode("utf-8")

    def served(self, skill: ExpectedSkill) -> dict[str, bytes]:
        """Every supporting file the skill must serve, by path, with its exact bytes."""
        prefix = skill.path + "/"
        return {
            path[len(prefix) :]: self.raw(skill, path[len(prefix) :])
            for path, content in self.files.items()
            if path.startswith(prefix)
            and path != prefix + "SKILL.md"
            and path[len(prefix) :] not in skill.omitted
            and not isinstance(content, Link)
        }

    def executable(self, skill: ExpectedSkill) -> set[str]:
        return {rel for rel in self.served(skill) if rel.startswith("scripts/")}


def _front(lines: list[str], body: str, newline: str = "\n") -> str:
    return newline.join(["---", *lines, "---", *body.split("\n")])


# --- F1: a catalog with dot-named categories, no plugin layout --------------------------------

_FORM_FILLER = _front(
    [
        "name: form-filler",
        "description: >",
        "  Fill in paper-style forms from a short interview: find the fields, ask for each,",
        "  and write the answers back where they belong.",
        'license: "Proprietary. LICENSE.txt has complete terms"',
    ],
    "# Form filler\n\nRead FORMS.md first, then REFERENCE.md for the field types.\n"
    "Run scripts/fill.py only after reading it; it uses scripts/lib/geometry.py.\n",
)
_POSTER_KIT = _front(
    [
        "name: poster-kit",
        "description: Lay out a one-page poster with the bundled Quillon font and icon set.",
        "metadata:",
        "  author: fixture-team",
        '  version: "1.2.0"',
    ],
    "# Poster kit\n\nUse templates/layout.html; the font licence is assets/fonts/Quillon-OFL.txt.\n",
)
_HOUSE_TONE = _front(
    [
        "name: house-tone",
        "description: 'Write in the house tone: short sentences, no jargon, one idea each.'",
        "metadata:",
        "    short-description: Keep the house tone",
        "allowed-tools:",
        "  - Read",
        "  - Edit",
    ],
    "# House tone\n\nPrefer plain words. Cut every sentence that says nothing.\n",
)
_SERVER_GUIDE = _front(
    [
        "name: server-guide",
        'description: "Build a small tool server: plan, write, test; then evaluate it."',
        "allowed-tools: Bash(git:*) Read Write",
        "compatibility: Needs Python 3.11 or later and network access to install packages.",
        "license: MIT",
    ],
    "# Server guide\n\nStart with reference/evaluation.md. For Python, reference/servers/python.md.\n"
    "scripts/check.py validates the layout against scripts/data/rules.json.\n",
)
# CRLF line endings throughout, no metadata, no version.
_SKETCH_NOTES = _front(
    ["name: sketch-notes", "description: Turn a whiteboard photo description into tidy notes."],
    "# Sketch notes\n\nList the boxes, then the arrows between them.\n",
    newline="\r\n",
)
# A UTF-8 byte-order mark before the opening line, as some editors write.
_MARKED = "\ufeff" + _front(
    ["name: marked-notes", "description: Notes written by an editor that adds a byte-order mark."],
    "# Marked notes\n\nNothing special beyond the mark.\n",
)

CATALOG = OpenFixture(
    name="catalog",
    files={
        "README.md": "# Our skills\n",
        "LICENSE": "Invented licence text.\n",
        ".claude-plugin/marketplace.json": '{"plugins": []}\n',
        "skills/README.md": "Skills live in category folders.\n",
        "skills/old-bundle.zip": FAKE_ZIP,
        "skills/.curated/form-filler/SKILL.md": _FORM_FILLER,
        "skills/.curated/form-filler/FORMS.md": "# Forms\n\nA field is a label and a box.\n",
        "skills/.curated/form-filler/REFERENCE.md": "# Field types\n\n- text\n- date\n- tick box\n",
        "skills/.curated/form-filler/LICENSE.txt": "Proprietary. Invented terms for tests.\n",
        "skills/.curated/form-filler/agents/openai.yaml": "interface:\n  display_name: Form filler\n",
        "skills/.curated/form-filler/scripts/fill.py": "from lib.geometry import boxes\n\nprint(boxes())\n",
        "skills/.curated/form-filler/scripts/lib/geometry.py": "def boxes():\n    return []\n",
        "skills/.curated/form-filler/scripts/lib/__pycache__/geometry.cpython-312.pyc": FAKE_PYC,
        "skills/.curated/poster-kit/SKILL.md": _POSTER_KIT,
        "skills/.curated/poster-kit/assets/fonts/Quillon-Regular.ttf": FAKE_TTF,
        "skills/.curated/poster-kit/assets/fonts/Quillon-OFL.txt": "Invented font licence.\n",
        "skills/.curated/poster-kit/assets/icon.png": FAKE_PNG,
        "skills/.curated/poster-kit/assets/icon-small.svg": '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
        "skills/.curated/poster-kit/assets/empty/.gitkeep": "",
        "skills/.curated/poster-kit/assets/notes-latin1.txt": LATIN1_TEXT,
        "skills/.curated/poster-kit/templates/layout.html": "<main>\n  <h1>Title</h1>\n</main>\n",
        "skills/.system/house-tone/SKILL.md": _HOUSE_TONE,
        "skills/design/server-guide/SKILL.md": _SERVER_GUIDE,
        "skills/design/server-guide/reference/evaluation.md": "# Evaluation\n\nTen questions.\n",
        "skills/design/server-guide/reference/servers/python.md": "# Python\n\nUse the standard library.\n",
        "skills/design/server-guide/scripts/check.py": "import json\n",
        "skills/design/server-guide/scripts/data/rules.json": '{"rules": ["one tool per job"]}\n',
        "skills/design/server-guide/scripts/office/schemas/ecma/part-one/core.xsd": (
            '<?xml version="1.0"?>\n<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>\n'
        ),
        "skills/design/sketch-notes/SKILL.md": _SKETCH_NOTES,
        "skills/design/marked-notes/SKILL.md": _MARKED,
    },
    skills=(
        ExpectedSkill(
            "form-filler",
            "skills/.curated/form-filler",
            omitted={"scripts/lib/__pycache__/geometry.cpython-312.pyc": "binary"},
        ),
        ExpectedSkill(
            "poster-kit",
            "skills/.curated/poster-kit",
            version="1.2.0",
            omitted={
                "assets/fonts/Quillon-Regular.ttf": "binary",
                "assets/icon.png": "binary",
                "assets/empty/.gitkeep": "'.'",
                "assets/notes-latin1.txt": "UTF-8",
            },
        ),
        ExpectedSkill("house-tone", "skills/.system/house-tone"),
        ExpectedSkill("server-guide", "skills/design/server-guide"),
        ExpectedSkill("sketch-notes", "skills/design/sketch-notes"),
        ExpectedSkill("marked-notes", "skills/design/marked-notes"),
    ),
    strays=frozenset({"skills/README.md", "skills/old-bundle.zip"}),
)


# --- F2: plugins, each with its manifests and a skills/ folder ---------------------------------

_CODE_AUDIT = _front(
    [
        "name: code-audit",
        "description: Audit a change for the usual security mistakes, one checklist item at a time.",
        'argument-hint: "<path>"',
        "user-invocable: false",
        "disable-model-invocation: true",
        "model: small",
        "context: fork",
        "triggers: [audit, review]",
        "date: 2026-01-15",
    ],
    "# Code audit\n\nWork through references/checklist.md; resources/PATTERNS.md lists patterns.\n",
)
_DIFF_REVIEW = _front(
    [
        "name: diff-review",
        "description: Review a diff for intent, tests and naming before it is merged.",
        "version: 2.0.0",
        "tags: [review, diffs]",
        "keywords: [patch]",
        "license: MIT",
    ],
    "# Diff review\n\nRead the whole diff once before commenting on any line.\n",
)
_PREVIEW_DEPLOY = _front(
    [
        "name: preview-deploy",
        "description: Deploy a preview build of the internal site and post its link.",
        'metadata: {required_zdr: "true", version: "0.3.1", author: platform}',
    ],
    "# Preview deploy\n\nRead scripts/deploy.sh before running it, under your own permissions.\n",
)
_EARLY_BIRD = _front(
    ["name: early-bird", "description: A skill four folders down, in a parenthesised category."],
    "# Early bird\n\nFound at the deepest level discovery looks at.\n",
)

PLUGINS = OpenFixture(
    name="plugins",
    skills_dir="plugins",
    files={
        "README.md": "# Plugins\n",
        ".claude-plugin/marketplace.json": '{"plugins": [{"name": "audit-kit"}]}\n',
        ".codex/skills/code-audit": Link("../../plugins/audit-kit/skills/code-audit"),
        "plugins/README.md": "Each plugin holds its skills.\n",
        "plugins/audit-kit/.claude-plugin/plugin.json": '{"name": "audit-kit"}\n',
        "plugins/audit-kit/README.md": "# Audit kit\n",
        "plugins/audit-kit/agents/reviewer.md": "# Reviewer agent\n",
        "plugins/audit-kit/evals/case-1/case.yaml": "input: a diff\n",
        "plugins/audit-kit/evals/.gitignore": "out/\n",
        "plugins/audit-kit/skills/code-audit/SKILL.md": _CODE_AUDIT,
        "plugins/audit-kit/skills/code-audit/references/checklist.md": "# Checklist\n\n- inputs\n",
        "plugins/audit-kit/skills/code-audit/resources/PATTERNS.md": "# Patterns\n",
        "plugins/audit-kit/skills/code-audit/CHANGELOG.md": "# Changes\n\n- first\n",
        "plugins/audit-kit/skills/diff-review/SKILL.md": _DIFF_REVIEW,
        "plugins/deploy-kit/.codex-plugin/plugin.json": '{"name": "deploy-kit"}\n',
        "plugins/deploy-kit/plugin.lock.json": "{}\n",
        "plugins/deploy-kit/skills/preview-deploy/SKILL.md": _PREVIEW_DEPLOY,
        "plugins/deploy-kit/skills/preview-deploy/scripts/deploy.sh": "#!/bin/sh\necho preview\n",
        "plugins/deploy-kit/skills/alias-link": Link("../../audit-kit/skills/code-audit"),
        "plugins/suite/skills/(beta)/early-bird/SKILL.md": _EARLY_BIRD,
    },
    skills=(
        ExpectedSkill("code-audit", "plugins/audit-kit/skills/code-audit"),
        ExpectedSkill("diff-review", "plugins/audit-kit/skills/diff-review", version="2.0.0"),
        ExpectedSkill(
            "preview-deploy", "plugins/deploy-kit/skills/preview-deploy", version="0.3.1", required_zdr=True
        ),
        ExpectedSkill("early-bird", "plugins/suite/skills/(beta)/early-bird"),
    ),
    strays=frozenset(
        {
            "plugins/README.md",
            "plugins/audit-kit/.claude-plugin",
            "plugins/audit-kit/README.md",
            "plugins/audit-kit/agents",
            "plugins/audit-kit/evals",
            "plugins/deploy-kit/.codex-plugin",
            "plugins/deploy-kit/plugin.lock.json",
            "plugins/deploy-kit/skills/alias-link",
        }
    ),
)


# --- F3: both dialects in one repository, ZDR in every spelling ---------------------------------

_LEDGER_EXPORT = _front(
    [
        "schema_version: 1",
        "id: ledger-export",
        "name: Ledger export",
        "description: Export the ledger to the finance team's spreadsheet layout.",
        "version: 1.0.0",
        "files: [references/columns.md]",
        "required_zdr: true",
    ],
    "# Ledger export\n\nThe columns are in references/columns.md.\n",
)
_PAYROLL_NOTES = _front(
    [
        "name: payroll-notes",
        "description: How the monthly payroll run is checked before it is sent.",
        'version: "1.0.0"',
        "required_zdr: true",
    ],
    "# Payroll notes\n\nCompare the totals with last month's before sending.\n",
)
_STAFF_HANDBOOK = _front(
    [
        "name: staff-handbook",
        "description: Answer questions about leave and working hours from the handbook.",
        "metadata:",
        '  required_zdr: "true"',
        '  version: "1.4.0"',
        "  author: hr",
    ],
    "# Staff handbook\n\nStart from rules/_index.md; leave is in rules/leave.md.\n",
)
_PUBLIC_GLOSSARY = _front(
    [
        "name: public-glossary",
        "description: The terms the public site uses, and what each means.",
        "metadata:",
        '  version: "1.0"',
    ],
    "# Glossary\n\nOne term per line, then its meaning.\n",
)

MIXED = OpenFixture(
    name="mixed",
    files={
        "skills/ledger-export/SKILL.md": _LEDGER_EXPORT,
        "skills/ledger-export/references/columns.md": "# Columns\n\ndate, account, amount\n",
        "skills/payroll-notes/SKILL.md": _PAYROLL_NOTES,
        "skills/staff-handbook/SKILL.md": _STAFF_HANDBOOK,
        "skills/staff-handbook/rules/_index.md": "# Rules\n\n- leave\n",
        "skills/staff-handbook/rules/leave.md": "# Leave\n\nAsk two weeks ahead.\n",
        "skills/public-glossary/SKILL.md": _PUBLIC_GLOSSARY,
    },
    skills=(
        ExpectedSkill("ledger-export", "skills/ledger-export", version="1.0.0", required_zdr=True),
        ExpectedSkill("payroll-notes", "skills/payroll-notes", version="1.0.0", required_zdr=True),
        ExpectedSkill("staff-handbook", "skills/staff-handbook", version="1.4.0", required_zdr=True),
        ExpectedSkill("public-glossary", "skills/public-glossary"),
    ),
    strays=frozenset(),
)

FIXTURES = (CATALOG, PLUGINS, MIXED)


def merged(name: str, *fixtures: OpenFixture) -> OpenFixture:
    """One repository holding several fixtures of the same skills_dir."""
    assert len({fixture.skills_dir for fixture in fixtures}) == 1
    files: dict[str, Content] = {}
    for fixture in fixtures:
        files.update(fixture.files)
    return OpenFixture(
        name=name,
        files=files,
        skills=tuple(skill for fixture in fixtures for skill in fixture.skills),
        strays=frozenset().union(*(fixture.strays for fixture in fixtures)),
        skills_dir=fixtures[0].skills_dir,
    )


# Both dialects, categories, omitted files and ZDR in every spelling, in one repository.
EVERYTHING = merged("everything", CATALOG, MIXED)


def _secrets(fixture: OpenFixture, skill: ExpectedSkill) -> tuple[str, ...]:
    """What only this skill says: its description, its body and its files' contents."""
    text = fixture.raw(skill, "SKILL.md").decode("utf-8")
    _, front, body = text.split("---\n", 2)
    served = [data.decode("utf-8").strip() for data in fixture.served(skill).values()]
    return (yaml.safe_load(front)["description"], body.strip(), *served)


# The ZDR skills of EVERYTHING, each with the strings no uncleared caller may ever read.
ZDR_SKILLS: Mapping[str, tuple[str, ...]] = {
    skill.id: _secrets(EVERYTHING, skill) for skill in EVERYTHING.skills if skill.required_zdr
}

"""The skills of the ZDR leak test (tests/mcpapi/test_zdr_leaks.py): ZDR skills of both
dialects with distinctive words to look for in answers, and the public skills beside them."""

from dataclasses import dataclass

import pytest

from tests.support.repos import SkillRepo, config_with_sections

pytestmark = pytest.mark.django_db


# Small pages, so that hidden skills would move page boundaries, counts and cursor positions.
CONFIG = config_with_sections(
    pagination={"default_limit": 2, "max_limit": 3},
    search={"default_limit": 2, "max_limit": 3, "excerpt_chars": 60},
)


@dataclass(frozen=True)
class ZdrSkill:
    id: str
    name: str
    description: str
    body: str
    tags: tuple[str, ...]
    keywords: tuple[str, ...]
    files: dict[str, str]
    markers: tuple[str, ...]  # strings found only in this skill
    # The open dialect: the frontmatter lines besides name, description, tags and keywords
    # ("" for the registry dialect), where the skill sits, and files it omits (not served).
    open_front: str = ""
    path: str = ""
    omitted: tuple[str, ...] = ()

    @property
    def directory(self) -> str:
        return self.path or f"skills/{self.id}"

    def write(self, repo: SkillRepo) -> None:
        if not self.open_front:
            repo.add_skill(
                self.id,
                body=self.body,
                files=dict(self.files),
                name=self.name,
                description=self.description,
                tags=list(self.tags),
                keywords=list(self.keywords),
                required_zdr=True,
            )
            return
        front = (
            f"name: {self.name}\ndescription: {self.description}\n"
            f"tags: [{', '.join(self.tags)}]\nkeywords: [{', '.join(self.keywords)}]\n{self.open_front}"
        )
        repo.write(f"{self.directory}/SKILL.md", f"---\n{front}---\n{self.body}")
        for path, text in self.files.items():
            repo.write(f"{self.directory}/{path}", text)
        for path in self.omitted:
            repo.write(f"{self.directory}/{path}", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")


ZDR_SKILLS = (
    ZdrSkill(
        id="zdr-secret-runbook",
        name="Classified Procedure",
        description="ZDR-DESC-MARKER-51c2 Handle the incident review procedure for ops.",
        body="ZDR-BODY-MARKER-9e1f7 Follow the classified steps to review the incident.\n",
        # "review" and "ops" are shared with public skills; the tag marker is its own.
        tags=("review", "ops", "zdrvaulttag"),
        keywords=("checklist", "ZDR-KEYWORD-MARKER-a41"),
        files={
            "references/playbook.md": "# Playbook\nZDR-FILE-MARKER-3b8d the classified playbook.\n",
            "scripts/purge.sh": "#!/bin/sh\necho ZDR-FILE-MARKER-77aa\n",
        },
        markers=(
            "ZDR-DESC-MARKER-51c2",
            "ZDR-BODY-MARKER-9e1f7",
            "zdrvaulttag",
            "ZDR-KEYWORD-MARKER-a41",
            "ZDR-FILE-MARKER-3b8d",
            "ZDR-FILE-MARKER-77aa",
        ),
    ),
    # Sorts between two public skills: hiding it must not shift anyone's page or position.
    ZdrSkill(
        id="bravo-zdr-vault",
        name="Vault Override",
        description="ZDR-DESC-MARKER-0d9e Rotate the release signing keys.",
        body="ZDR-BODY-MARKER-c0ffee Rotate every key, then review the release.\n",
        tags=("release", "ops"),
        keywords=("ZDR-KEYWORD-MARKER-b52",),
        files={"references/keys.md": "ZDR-FILE-MARKER-k3y5 where the keys live\n"},
        markers=(
            "ZDR-DESC-MARKER-0d9e",
            "ZDR-BODY-MARKER-c0ffee",
            "ZDR-KEYWORD-MARKER-b52",
            "ZDR-FILE-MARKER-k3y5",
        ),
    ),
    # Sorts first of all.
    ZdrSkill(
        id="aaa-zdr-first",
        name="Zeroth Ledger",
        description="ZDR-DESC-MARKER-f1r5 Keep the docs ledger.",
        body="ZDR-BODY-MARKER-0f1a Docs steps nobody uncleared may read.\n",
        tags=("docs",),
        keywords=(),
        files={},
        markers=("ZDR-DESC-MARKER-f1r5", "ZDR-BODY-MARKER-0f1a"),
    ),
    # The open dialect, top-level required_zdr, in a dot-named category; a vendor key and an
    # omitted file whose name is a marker (skills_get lists omitted files).
    ZdrSkill(
        id="open-zdr-vault",
        name="open-zdr-vault",
        description="ZDR-DESC-MARKER-0pen1 Audit the vault access log.",
        body="ZDR-BODY-MARKER-0pen1b Read the access log, then review the grants.\n",
        tags=("ops", "zdropentag"),
        keywords=("ZDR-KEYWORD-MARKER-0pen1",),
        files={"reference/grants.md": "ZDR-FILE-MARKER-0pen1f the grants\n"},
        markers=(
            "ZDR-DESC-MARKER-0pen1",
            "ZDR-BODY-MARKER-0pen1b",
            "zdropentag",
            "ZDR-KEYWORD-MARKER-0pen1",
            "ZDR-FILE-MARKER-0pen1f",
            "ZDR-VENDOR-MARKER-0pen1v",
            "ZDR-OMITTED-MARKER-0pen1o",
        ),
        open_front='required_zdr: true\nargument-hint: "ZDR-VENDOR-MARKER-0pen1v"\nlicense: MIT\n',
        path="skills/.private/open-zdr-vault",
        omitted=("assets/ZDR-OMITTED-MARKER-0pen1o.png",),
    ),
    # The open dialect, metadata.required_zdr, in a plain category; sorts between public skills.
    ZdrSkill(
        id="kilo-open-zdr",
        name="kilo-open-zdr",
        description="ZDR-DESC-MARKER-k1l0 Plan the confidential release.",
        body="ZDR-BODY-MARKER-k1l0b Release steps for the confidential build.\n",
        tags=("release",),
        keywords=(),
        files={"scripts/ship.sh": "#!/bin/sh\necho ZDR-FILE-MARKER-k1l0f\n"},
        markers=(
            "ZDR-DESC-MARKER-k1l0",
            "ZDR-BODY-MARKER-k1l0b",
            "ZDR-FILE-MARKER-k1l0f",
            "ZDR-META-MARKER-k1l0m",
        ),
        open_front='metadata:\n  required_zdr: "true"\n  version: "1.0.0"\n  author: ZDR-META-MARKER-k1l0m\n',
        path="skills/team/kilo-open-zdr",
    ),
    # Native (its name is its id), so the skills extension would list it: it sorts between
    # two public native skills.
    ZdrSkill(
        id="kilo-zdr-native",
        name="kilo-zdr-native",
        description="ZDR-DESC-MARKER-k1l0 Unseal the ops archive.",
        body="ZDR-BODY-MARKER-5ea1 Unseal, then review the archive.\n",
        tags=("ops",),
        keywords=(),
        files={"references/seal.md": "ZDR-FILE-MARKER-5ea1 the seal\n"},
        markers=("ZDR-DESC-MARKER-k1l0", "ZDR-BODY-MARKER-5ea1", "ZDR-FILE-MARKER-5ea1"),
    ),
)
ZDR_IDS = tuple(skill.id for skill in ZDR_SKILLS)
NEVER_EXISTED = "no-such-skill-ever"  # the ghost every ZDR answer must look like


def add_public_skills(repo: SkillRepo) -> None:
    """alpha and delta are named by a title; charlie, lima and omega by their id (native)."""
    repo.add_skill(
        "alpha",
        body="Alpha: review the change, then run the checklist.\n",
        files={"references/notes.md": "# Notes\nAlpha notes.\n", "scripts/check.sh": "#!/bin/sh\necho ok\n"},
        name="Alpha",
        description="Review changes with a checklist.",
        tags=["review", "ops"],
        keywords=["checklist"],
    )
    repo.add_skill(
        "charlie",
        body="Charlie procedure for the on-call handover.\n",
        name="charlie",
        description="Hand over on-call duty.",
        tags=["ops"],
    )
    repo.add_skill(
        "delta",
        body="Delta steps to keep the runbook current.\n",
        name="Delta",
        description="Maintain the docs runbook.",
        tags=["docs", "review"],
        keywords=["runbook"],
    )
    repo.add_skill(
        "lima",
        body="Lima release steps: tag, build, review the notes.\n",
        name="lima",
        description="Cut a release.",
        tags=["release"],
    )
    repo.add_skill(
        "omega",
        body="Omega steps for the incident review.\n",
        files={"references/a.md": "A\n", "references/b.md": "B\n"},
        name="omega",
        description="Write the incident report.",
        tags=["review"],
    )

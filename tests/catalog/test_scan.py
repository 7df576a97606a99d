"""catalog.scan: the skill directories of a tree, and each skill read within its limits."""

from pathlib import Path

from catalog.config import config_from_dict
from catalog.discovery import list_skills
from catalog.hashing import content_hash, sha256_hex
from catalog.rules import Rules
from catalog.scan import scan_skill
from catalog.trees import WorkingTree
from tests.support.repos import DEFAULT_CONFIG, SkillRepo, config_with_limits
from tests.support.skillmd import skill_md


class SpyTree(WorkingTree):
    """A working tree that records every path it reads."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.reads: list[str] = []

    def read(self, path: str, max_bytes: int) -> bytes | None:
        self.reads.append(path)
        return super().read(path, max_bytes)


def rules(**limits: int) -> Rules:
    return Rules(config_from_dict(config_with_limits(**limits) if limits else DEFAULT_CONFIG))


def test_entries_are_grouped_by_skill_directory_in_name_order(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("beta", files={"references/b.md": "b\n"})
    skill_repo.add_skill("alpha")
    listing = list_skills(WorkingTree(skill_repo.root), rules())
    assert [skill_dir.name for skill_dir in listing.skill_dirs] == ["alpha", "beta"]
    assert [rel for rel, _ in listing.skill_dirs[1].entries] == ["SKILL.md", "references/b.md"]
    assert listing.problems == [] and listing.known_valid == []


def test_a_stray_file_and_too_many_skills_are_tree_wide_problems(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha")
    skill_repo.add_skill("beta")
    skill_repo.write("skills/README.md", "stray\n")
    listing = list_skills(WorkingTree(skill_repo.root), rules(max_skills=2))
    assert {(p.path, p.code, p.severity) for p in listing.problems} == {
        ("skills/README.md", "stray_entry", "warning"),
    }
    # Over the count the tree is refused whole: that one problem, and no skill to read.
    listing = list_skills(WorkingTree(skill_repo.root), rules(max_skills=1))
    assert [(p.path, p.code, p.severity) for p in listing.problems] == [
        ("skills", "too_many_skills", "error")
    ]
    assert listing.skill_dirs == []


def test_known_valid_directories_are_counted_but_not_listed(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha")
    skill_repo.add_skill("beta")
    known = {"skills/alpha", "skills/nope"}
    listing = list_skills(WorkingTree(skill_repo.root), rules(max_skills=2), known_valid=known)
    assert [skill_dir.name for skill_dir in listing.skill_dirs] == ["beta"]
    assert listing.known_valid == ["skills/alpha"]
    assert listing.problems == []
    listing = list_skills(WorkingTree(skill_repo.root), rules(max_skills=1), known_valid=known)
    assert [p.code for p in listing.problems] == ["too_many_skills"]


def test_a_valid_skill_is_hashed_over_skill_md_and_its_files(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": "a\n"})
    tree = WorkingTree(skill_repo.root)
    [skill_dir] = list_skills(tree, rules()).skill_dirs
    scan = scan_skill(tree, skill_dir, rules())
    raw = (skill_repo.root / "skills/demo/SKILL.md").read_bytes()
    assert scan.problems == []
    assert scan.content_hash == content_hash(raw, [("references/a.md", sha256_hex(b"a\n"))])
    skill = scan.validated()
    assert skill is not None and skill.id == "demo" and skill.skill_md_size == len(raw)


def test_a_file_over_max_file_bytes_is_never_read_and_leaves_no_hash(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/big.md": "x" * 200, "references/ok.md": "ok\n"})
    tree = SpyTree(skill_repo.root)
    [skill_dir] = list_skills(tree, rules(max_file_bytes=100)).skill_dirs
    scan = scan_skill(tree, skill_dir, rules(max_file_bytes=100))
    assert "skills/demo/references/big.md" not in tree.reads
    assert "skills/demo/references/ok.md" in tree.reads
    assert [(p.path, p.code) for p in scan.problems] == [("skills/demo/references/big.md", "file_too_large")]
    assert scan.content_hash is None and scan.validated() is None


def test_a_skill_over_its_total_reads_no_supporting_file(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": "a" * 60, "references/b.md": "b" * 60})
    tree = SpyTree(skill_repo.root)
    limited = rules(max_skill_total_bytes=len(skill_md("demo", files_list=None)) + 100)
    [skill_dir] = list_skills(tree, limited).skill_dirs
    scan = scan_skill(tree, skill_dir, limited)
    assert tree.reads == ["skills/demo/SKILL.md"]
    assert [p.code for p in scan.problems] == ["skill_too_large"]
    assert scan.content_hash is None


def test_a_skill_md_in_another_case_is_named_on_its_path(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/demo/skill.md", skill_md("demo"))
    skill_repo.write("skills/demo/references/a.md", "a\n")
    listing = list_skills(WorkingTree(skill_repo.root), rules())
    assert listing.skill_dirs == []
    [problem] = listing.problems
    assert (problem.path, problem.code, problem.severity) == (
        "skills/demo/skill.md",
        "missing_skill_md",
        "error",
    )
    assert problem.message.startswith("found skill.md; rename it to SKILL.md")

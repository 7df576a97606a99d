"""The rules on a skill's supporting files and on the content of every file
(docs/reference.md#validation), through real git trees."""

import pytest

from catalog.trees import WorkingTree
from catalog.validation import validate_tree
from tests.catalog.tree_support import MD, codes, nested_repository, symlink, validate, validate_commit
from tests.support.repos import SkillRepo, config_with_limits
from tests.support.skillmd import skill_md

# --- supporting files -------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "references/a.md",
        "references/api/auth.md",
        "templates/email/deep/t.txt",
        "scripts/run.sh",
        "scripts/tool.py",
        "scripts/app.js",
        "scripts/app.ts",
        "scripts/task.rb",
        "scripts/README.md",
        "references/UPPER.MD",
    ],
)
def test_it_accepts_a_listed_file_in_an_allowed_folder_with_an_allowed_extension(
    skill_repo: SkillRepo, path: str
) -> None:
    skill_repo.add_skill("demo", files={path: "text\n"})
    report = validate(skill_repo)
    assert report.ok, report.problems
    assert [f.path for f in report.skills[0].files] == [path]


@pytest.mark.parametrize("path", ["notes.md", "docs/a.md", "Scripts/run.sh", "references"])
def test_it_rejects_a_file_outside_references_templates_and_scripts(skill_repo: SkillRepo, path: str) -> None:
    skill_repo.add_skill("demo", files={path: "text\n"})
    report = validate(skill_repo)
    assert (f"skills/demo/{path}", "disallowed_location") in codes(report)
    assert report.skills == []


@pytest.mark.parametrize(
    "path", ["references/tool.py", "templates/run.sh", "references/a.exe", "references/noext"]
)
def test_it_rejects_an_extension_not_allowed_in_its_folder(skill_repo: SkillRepo, path: str) -> None:
    skill_repo.add_skill("demo", files={path: "text\n"})
    report = validate(skill_repo)
    assert codes(report) == {(f"skills/demo/{path}", "disallowed_extension")}


def test_it_rejects_a_script_extension_missing_from_the_config(tmp_path) -> None:
    config = config_with_limits()
    config["allowed_script_extensions"] = [".sh"]
    repo = SkillRepo(tmp_path / "repo", config)
    repo.add_skill("demo", files={"scripts/a.sh": "x\n", "scripts/b.py": "x\n"})
    assert codes(validate(repo)) == {("skills/demo/scripts/b.py", "disallowed_extension")}


def test_it_rejects_a_file_that_is_not_listed_naming_the_file(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": "a\n"}, files_list=[])
    report = validate(skill_repo)
    assert codes(report) == {("skills/demo/references/a.md", "unlisted_file")}


def test_it_rejects_files_when_the_files_key_is_absent(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": "a\n"}, files_list=None)
    assert codes(validate(skill_repo)) == {("skills/demo/references/a.md", "unlisted_file")}


def test_it_rejects_a_listed_file_that_does_not_exist(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files_list=["references/gone.md"])
    report = validate(skill_repo)
    assert codes(report) == {(MD, "listed_file_missing")}
    assert "'references/gone.md'" in report.problems[0].message


def test_it_rejects_a_listed_directory(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill(
        "demo", files={"references/a.md": "a\n"}, files_list=["references/a.md", "references"]
    )
    assert codes(validate(skill_repo)) == {(MD, "listed_file_missing")}


def test_it_rejects_a_listed_file_deleted_from_the_working_tree(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": "a\n"})
    skill_repo.commit()
    skill_repo.remove("skills/demo/references/a.md")
    assert codes(validate(skill_repo)) == {(MD, "listed_file_missing")}
    assert validate_commit(skill_repo).ok


def test_it_rejects_a_dot_dot_path_in_files_naming_it(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files_list=["references/../../other/SKILL.md"])
    report = validate(skill_repo)
    assert codes(report) == {(MD, "invalid_path")}
    assert "'references/../../other/SKILL.md'" in report.problems[0].message


@pytest.mark.parametrize("name", ["a%20b.md", "a\\b.md"])
def test_it_rejects_a_file_on_disk_whose_path_could_not_be_retrieved(
    skill_repo: SkillRepo, name: str
) -> None:
    skill_repo.add_skill("demo", files={f"references/{name}": "x\n"})
    report = validate(skill_repo)
    assert (f"skills/demo/references/{name}", "invalid_path") in codes(report)
    assert (MD, "invalid_path") in codes(report)


def test_it_rejects_a_symlink_naming_the_file(skill_repo: SkillRepo) -> None:
    skill_repo.write("secret.md", "private\n")
    skill_repo.add_skill("demo", files_list=["references/link.md"])
    symlink(skill_repo, "skills/demo/references/link.md", "../../../secret.md")
    report = validate(skill_repo)
    assert codes(report) == {("skills/demo/references/link.md", "symlink")}
    assert report.skills == []
    skill_repo.commit()
    assert codes(validate_commit(skill_repo)) == {("skills/demo/references/link.md", "symlink")}


def test_it_rejects_a_symlinked_skill_md(skill_repo: SkillRepo) -> None:
    skill_repo.write("elsewhere.md", skill_md("demo"))
    symlink(skill_repo, MD, "../../elsewhere.md")
    assert codes(validate(skill_repo)) == {(MD, "symlink")}


def test_it_rejects_a_submodule_inside_a_skill(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo")
    nested_repository(skill_repo, "skills/demo/references/vendor")
    skill_repo.commit()
    assert codes(validate(skill_repo)) == {("skills/demo/references/vendor", "submodule")}
    assert codes(validate_commit(skill_repo)) == {("skills/demo/references/vendor", "submodule")}


# --- content ----------------------------------------------------------------------------


def test_it_rejects_a_file_with_a_nul_byte_naming_it(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": b"text\0more"})
    report = validate(skill_repo)
    assert codes(report) == {("skills/demo/references/a.md", "binary_content")}
    assert report.problems[0].message == "contains a NUL byte at offset 4; only text files are allowed"


def test_it_rejects_a_file_that_is_not_utf8_naming_it(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.txt": b"caf\xe9\n"})
    report = validate(skill_repo)
    assert codes(report) == {("skills/demo/references/a.txt", "not_utf8")}
    assert report.problems[0].message == "is not valid UTF-8 (bad byte at offset 3)"


def test_it_rejects_a_binary_skill_md(skill_repo: SkillRepo) -> None:
    skill_repo.write(MD, skill_md("demo").encode() + b"\x89PNG\0")
    assert codes(validate(skill_repo)) == {(MD, "binary_content")}


def test_it_accepts_multibyte_utf8(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", "Étape 1 — café ☕\n", files={"references/a.md": "日本語\n"})
    assert validate(skill_repo).ok


class ReadCounting(WorkingTree):
    """A working tree that counts the files it is asked to read."""

    reads: list[str]

    def __init__(self, root: object) -> None:
        super().__init__(root)  # type: ignore[arg-type]
        self.reads = []

    def read(self, path: str, max_bytes: int) -> bytes | None:
        self.reads.append(path)
        return super().read(path, max_bytes)


def test_over_max_skills_is_refused_before_any_skill_md_is_read(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_skills=3))
    for n in range(4):
        # Each broken on its own: none of that is worth reading once the count refuses them.
        repo.write(f"skills/skill-{n}/SKILL.md", "not even a frontmatter\n")
    tree = ReadCounting(repo.root)
    report = validate_tree(tree)
    assert [(p.path, p.code, p.message) for p in report.problems] == [
        ("skills", "too_many_skills", "holds 4 skills, more than max_skills (3)")
    ]
    assert [path for path in tree.reads if path.endswith("SKILL.md")] == []


def test_over_max_files_per_skill_is_one_problem_and_no_entry_is_looked_at(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_files_per_skill=3))
    # Unlisted, misplaced, with a disallowed extension: three problems each, were they looked at.
    repo.add_skill("demo", files_list=[])
    for n in range(40):
        repo.write(f"skills/demo/junk-{n}.bin", "x\n")
    tree = ReadCounting(repo.root)
    report = validate_tree(tree)
    assert [(p.path, p.code, p.message) for p in report.problems] == [
        (MD, "too_many_files", "the skill has 40 supporting files, more than max_files_per_skill (3)")
    ]
    assert tree.reads == ["registry.config.json", MD]

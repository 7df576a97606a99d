"""Every rule (docs/reference.md#validation) over a whole repository, through real git trees."""

import hashlib

import pytest

from catalog.config import DEFAULTS
from catalog.hashing import content_hash
from catalog.report import ValidatedFile
from catalog.trees import WorkingTree
from catalog.validation import validate_tree
from tests.catalog.tree_support import MD, codes, nested_repository, symlink, validate, validate_commit
from tests.support.repos import SkillRepo, config_with_limits
from tests.support.skillmd import skill_md


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- a valid repository -----------------------------------------------------------------


def test_it_accepts_an_empty_registry(skill_repo: SkillRepo) -> None:
    report = validate(skill_repo)
    assert report.ok
    assert report.skills == []
    assert report.config is not None


def test_it_returns_every_valid_skill_with_its_metadata_files_and_hash(skill_repo: SkillRepo) -> None:
    files = {
        "references/api/auth.md": "# Auth\n",
        "templates/out.txt": "template\n",
        "scripts/run.py": "print('hi')\n",
    }
    skill_repo.add_skill(
        "demo", "Use it.\n", files, tags=["data"], keywords=["csv"], requires=["python3"], required_zdr=True
    )
    report = validate(skill_repo)
    assert report.ok, report.problems
    [skill] = report.skills
    raw_md = (skill_repo.root / MD).read_bytes()
    assert (skill.id, skill.metadata.name, skill.metadata.version) == ("demo", "demo", "1.0.0")
    assert (
        skill.metadata.tags,
        skill.metadata.keywords,
        skill.metadata.requires,
        skill.metadata.required_zdr,
    ) == (
        ("data",),
        ("csv",),
        ("python3",),
        True,
    )
    assert skill.instructions == "Use it.\n"
    assert (skill.skill_md_source, skill.skill_md_size, skill.skill_md_sha256) == (
        MD,
        len(raw_md),
        sha(raw_md),
    )
    assert skill.files == (
        ValidatedFile(
            "references/api/auth.md",
            "skills/demo/references/api/auth.md",
            7,
            sha(b"# Auth\n"),
            "text/markdown",
            False,
        ),
        ValidatedFile(
            "scripts/run.py", "skills/demo/scripts/run.py", 12, sha(b"print('hi')\n"), "text/x-python", True
        ),
        ValidatedFile(
            "templates/out.txt", "skills/demo/templates/out.txt", 9, sha(b"template\n"), "text/plain", False
        ),
    )
    assert skill.content_hash == content_hash(raw_md, [(f.path, f.sha256) for f in skill.files])


def test_it_lists_skills_by_id(skill_repo: SkillRepo) -> None:
    for skill_id in ("zeta", "alpha", "mid"):
        skill_repo.add_skill(skill_id)
    assert [skill.id for skill in validate(skill_repo).skills] == ["alpha", "mid", "zeta"]


def test_it_validates_a_commit_like_the_working_tree(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/a.md": "a\n"})
    skill_repo.commit()
    assert validate_commit(skill_repo).skills == validate(skill_repo).skills


def test_it_validates_uncommitted_edits_in_the_working_tree(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo")
    skill_repo.commit()
    skill_repo.write(MD, skill_md("demo", required_zrd=True))
    assert (MD, "unknown_key") in codes(validate(skill_repo))
    assert validate_commit(skill_repo).ok


def test_it_validates_a_commit_without_the_dirty_work_tree(skill_repo: SkillRepo) -> None:
    skill_repo.write(MD, skill_md("demo", required_zrd=True))
    skill_repo.commit()
    skill_repo.add_skill("demo")
    assert validate(skill_repo).ok
    assert (MD, "unknown_key") in codes(validate_commit(skill_repo))


def test_it_ignores_files_git_would_not_commit(skill_repo: SkillRepo) -> None:
    skill_repo.write(".gitignore", "*.swp\n")
    skill_repo.add_skill("demo")
    skill_repo.write("skills/demo/.SKILL.md.swp", b"\0binary editor state")
    assert validate(skill_repo).ok


def test_it_only_returns_skills_without_problems(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("good")
    skill_repo.add_skill("bad", required_zdr="true")
    report = validate(skill_repo)
    assert [skill.id for skill in report.skills] == ["good"]
    assert codes(report) == {("skills/bad/SKILL.md", "invalid_required_zdr")}


def test_it_reports_every_problem_sorted_by_path_then_message(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("b-skill", tags=["Bad"], files_list=["references/missing.md"])
    skill_repo.write("skills/b-skill/notes.md", "x\n")
    skill_repo.add_skill("a-skill", version="one")
    report = validate(skill_repo)
    keys = [(problem.path, problem.message) for problem in report.problems]
    assert keys == sorted(keys)
    assert codes(report) == {
        ("skills/a-skill/SKILL.md", "invalid_version"),
        ("skills/b-skill/SKILL.md", "invalid_tag"),
        ("skills/b-skill/SKILL.md", "listed_file_missing"),
        ("skills/b-skill/notes.md", "disallowed_location"),
        ("skills/b-skill/notes.md", "unlisted_file"),
    }


# --- registry.config.json ---------------------------------------------------------------


def test_without_a_config_the_built_in_defaults_govern(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo")
    skill_repo.remove("registry.config.json")
    report = validate(skill_repo)
    assert report.ok
    assert report.config == DEFAULTS
    assert [skill.id for skill in report.skills] == ["demo"]


def test_a_commit_without_a_config_is_validated_under_the_defaults(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", files={"references/big.md": "b" * (DEFAULTS.limits.max_file_bytes + 1)})
    skill_repo.remove("registry.config.json")
    skill_repo.commit()
    report = validate_commit(skill_repo)
    assert report.config == DEFAULTS
    assert codes(report) == {("skills/demo/references/big.md", "file_too_large")}


def test_a_partial_config_keeps_the_defaults_for_what_it_leaves_out(skill_repo: SkillRepo) -> None:
    skill_repo.write("registry.config.json", '{"limits": {"max_files_per_skill": 1}}')
    skill_repo.add_skill("demo", files={"references/a.md": "a\n", "references/b.md": "b\n"})
    report = validate(skill_repo)
    assert report.config is not None and report.config.skills_dir == DEFAULTS.skills_dir
    assert codes(report) == {(MD, "too_many_files")}


def test_it_rejects_an_invalid_config_with_the_reason(skill_repo: SkillRepo) -> None:
    skill_repo.write("registry.config.json", '{"schema_version": 1, "skills_dir": "a/b"}')
    report = validate(skill_repo)
    [problem] = report.problems
    assert (problem.path, problem.code) == ("registry.config.json", "invalid_config")
    assert problem.message.startswith("invalid config: skills_dir must be a single directory name")


def test_a_directory_named_like_the_config_is_invalid_config(skill_repo: SkillRepo) -> None:
    skill_repo.remove("registry.config.json")
    skill_repo.write("registry.config.json/x.json", "{}")
    report = validate(skill_repo)
    assert codes(report) == {("registry.config.json", "invalid_config")}
    assert report.problems[0].message == "is a directory; it must be a regular file"


def test_a_file_whose_name_only_starts_like_the_config_is_not_the_config(skill_repo: SkillRepo) -> None:
    skill_repo.remove("registry.config.json")
    skill_repo.write("registry.config.json.bak", "{")
    skill_repo.add_skill("demo")
    assert validate(skill_repo).config == DEFAULTS


def test_it_rejects_a_config_that_is_not_json(skill_repo: SkillRepo) -> None:
    skill_repo.write("registry.config.json", "{")
    assert codes(validate(skill_repo)) == {("registry.config.json", "invalid_config")}


def test_it_rejects_a_symlinked_config(skill_repo: SkillRepo) -> None:
    skill_repo.write("real.json", (skill_repo.root / "registry.config.json").read_text())
    skill_repo.remove("registry.config.json")
    symlink(skill_repo, "registry.config.json", "real.json")
    report = validate(skill_repo)
    assert codes(report) == {("registry.config.json", "invalid_config")}
    assert "symlink" in report.problems[0].message


def test_it_uses_the_configured_skills_dir(tmp_path) -> None:
    config = config_with_limits()
    config["skills_dir"] = "catalogue"
    repo = SkillRepo(tmp_path / "repo", config)
    repo.write("catalogue/demo/SKILL.md", skill_md("demo"))
    repo.add_skill("ignored", required_zrd=True)  # under skills/, which this config does not use
    report = validate(repo)
    assert report.ok
    assert [skill.id for skill in report.skills] == ["demo"]
    assert report.skills[0].skill_md_source == "catalogue/demo/SKILL.md"


# --- the layout of skills/ --------------------------------------------------------------


def test_it_rejects_a_skills_dir_that_is_a_file(skill_repo: SkillRepo) -> None:
    (skill_repo.root / "skills").rmdir()
    skill_repo.write("skills", "not a directory\n")
    assert codes(validate(skill_repo)) == {("skills", "skills_dir_not_directory")}


def test_a_file_directly_under_skills_is_a_warning_never_served(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/README.md", "# Skills\n")
    report = validate(skill_repo)
    assert codes(report) == {("skills/README.md", "stray_entry")}
    assert report.ok and report.problems[0].severity == "warning"


def test_a_directory_without_skill_md_is_a_stray_folder(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/demo/references/a.md", "a\n")
    report = validate(skill_repo)
    assert codes(report) == {("skills/demo", "stray_entry")} and report.ok and report.skills == []


def test_a_symlinked_skill_directory_is_never_followed(skill_repo: SkillRepo) -> None:
    skill_repo.write("elsewhere/demo/SKILL.md", skill_md("demo"))
    symlink(skill_repo, "skills/demo", "../elsewhere/demo")
    report = validate(skill_repo)
    assert codes(report) == {("skills/demo", "stray_entry")} and report.skills == []
    assert "symlink" in report.problems[0].message


def test_a_submodule_where_a_skill_would_be_is_never_read(skill_repo: SkillRepo) -> None:
    nested_repository(skill_repo, "skills/demo")
    skill_repo.commit()
    assert codes(validate(skill_repo)) == {("skills/demo", "stray_entry")}
    assert codes(validate_commit(skill_repo)) == {("skills/demo", "stray_entry")}


def test_it_rejects_an_id_that_differs_from_the_directory_name(skill_repo: SkillRepo) -> None:
    skill_repo.write(MD, skill_md("other"))
    report = validate(skill_repo)
    assert codes(report) == {(MD, "id_mismatch")}
    assert report.problems[0].message == "id 'other' must equal the directory name 'demo'"


def test_it_rejects_a_directory_name_that_is_not_an_id(skill_repo: SkillRepo) -> None:
    skill_repo.write("skills/Demo/SKILL.md", skill_md("demo"))
    assert codes(validate(skill_repo)) == {("skills/Demo/SKILL.md", "id_mismatch")}


def test_it_names_skill_md_for_a_frontmatter_problem(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("demo", name="")
    assert codes(validate(skill_repo)) == {(MD, "invalid_name")}


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

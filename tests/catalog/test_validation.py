"""Every rule (docs/reference.md#validation) over a whole repository, through real git trees."""

import hashlib

from catalog.config import DEFAULTS
from catalog.hashing import content_hash
from catalog.report import ValidatedFile
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

"""The repository and skill limits of registry.config.json (docs/reference.md#limits), each
inclusive: exactly at a limit passes, one over fails, and nothing past a limit is read."""

from tests.catalog.tree_support import MD, codes, skill_md_of_size, validate
from tests.support.repos import SkillRepo, config_with_limits

# --- limits (inclusive) -----------------------------------------------------------------


def test_it_accepts_a_skill_md_exactly_at_max_skill_md_bytes(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_skill_md_bytes=1000))
    repo.write(MD, skill_md_of_size("demo", 1000))
    assert validate(repo).ok


def test_it_rejects_a_skill_md_one_byte_over_max_skill_md_bytes(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_skill_md_bytes=1000))
    repo.write(MD, skill_md_of_size("demo", 1001))
    report = validate(repo)
    assert codes(report) == {(MD, "skill_md_too_large")}
    assert report.problems[0].message == "is 1001 bytes, more than max_skill_md_bytes (1000)"


def test_it_accepts_a_file_exactly_at_max_file_bytes(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_file_bytes=100))
    repo.add_skill("demo", files={"references/a.md": "x" * 100})
    assert validate(repo).ok


def test_it_rejects_a_file_one_byte_over_max_file_bytes(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_file_bytes=100))
    repo.add_skill("demo", files={"references/a.md": "x" * 101})
    report = validate(repo)
    assert codes(report) == {("skills/demo/references/a.md", "file_too_large")}
    assert report.problems[0].message == "is 101 bytes, more than max_file_bytes (100)"


def test_it_accepts_a_skill_exactly_at_max_skill_total_bytes(tmp_path) -> None:
    md = skill_md_of_size("demo", 600, files=["references/a.md"])
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_skill_total_bytes=1000))
    repo.write(MD, md)
    repo.write("skills/demo/references/a.md", "x" * 400)
    assert validate(repo).ok


def test_it_rejects_a_skill_one_byte_over_max_skill_total_bytes(tmp_path) -> None:
    md = skill_md_of_size("demo", 600, files=["references/a.md"])
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_skill_total_bytes=1000))
    repo.write(MD, md)
    repo.write("skills/demo/references/a.md", "x" * 401)
    report = validate(repo)
    assert codes(report) == {(MD, "skill_too_large")}
    assert (
        report.problems[0].message == "the skill is 1001 bytes in all, more than max_skill_total_bytes (1000)"
    )


def test_it_accepts_exactly_max_files_per_skill_supporting_files(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_files_per_skill=3))
    repo.add_skill("demo", files={f"references/{n}.md": "x\n" for n in range(3)})
    assert validate(repo).ok


def test_it_rejects_one_supporting_file_over_max_files_per_skill(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_files_per_skill=3))
    repo.add_skill("demo", files={f"references/{n}.md": "x\n" for n in range(4)})
    report = validate(repo)
    assert codes(report) == {(MD, "too_many_files")}
    # The directory says so, and so does the files list of SKILL.md that names all four.
    assert sorted(problem.message for problem in report.problems) == [
        "files holds 4 items, more than max_files_per_skill (3)",
        "the skill has 4 supporting files, more than max_files_per_skill (3)",
    ]


def test_it_accepts_exactly_max_skills(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_skills=3))
    for n in range(3):
        repo.add_skill(f"skill-{n}")
    assert validate(repo).ok


def test_it_rejects_one_skill_over_max_skills(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_skills=3))
    for n in range(4):
        repo.add_skill(f"skill-{n}")
    report = validate(repo)
    assert codes(report) == {("skills", "too_many_skills")}
    assert report.problems[0].message == "holds 4 skills, more than max_skills (3)"


def test_it_does_not_read_files_of_a_skill_over_its_limits(tmp_path) -> None:
    repo = SkillRepo(tmp_path / "repo", config_with_limits(max_skill_total_bytes=1000))
    repo.add_skill("demo", files={"references/a.md": b"x" * 990 + b"\0"})
    # Over the total: reported, and the binary content is never read (so not reported).
    assert codes(validate(repo)) == {(MD, "skill_too_large")}

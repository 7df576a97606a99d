"""manage.py check_skills: output formats and exit codes (docs/reference.md#commands, #validation)."""

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.catalog.tree_support import symlink
from tests.support.repos import SkillRepo
from tests.support.skillmd import skill_md


def run(*args: str, **options: Any) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of one check_skills run."""
    out, err = StringIO(), StringIO()
    try:
        call_command("check_skills", *args, stdout=out, stderr=err, **options)
    except SystemExit as exc:
        return int(exc.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def check(repo: SkillRepo, *args: str) -> tuple[int, str, str]:
    return run("--repo", str(repo.root), *args)


def test_it_exits_0_with_a_summary_for_a_valid_repo(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha", files={"references/a.md": "a\n"})
    skill_repo.add_skill("beta")
    assert check(skill_repo) == (0, "OK: 2 skills valid.\n", "")


def test_it_says_skill_in_the_singular(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha")
    assert check(skill_repo)[:2] == (0, "OK: 1 skill valid.\n")


def test_it_prints_one_path_message_line_per_problem_and_exits_1(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha", required_zdr="true")
    skill_repo.add_skill("beta", files={"references/a.md": b"\0"})
    code, out, err = check(skill_repo)
    assert code == 1
    assert out.splitlines() == [
        "skills/alpha/SKILL.md: required_zdr must be true or false (a YAML boolean), "
        "not the string 'true' (remove the quotes)",
        "skills/beta/references/a.md: contains a NUL byte at offset 0; only text files are allowed",
    ]
    assert "CommandError" not in out + err
    assert err == "2 problems found.\n"


def test_it_validates_uncommitted_edits(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha")
    skill_repo.commit()
    skill_repo.write("skills/alpha/SKILL.md", skill_md("alpha", required_zrd=True))
    code, out, _ = check(skill_repo)
    assert code == 1
    assert out == "skills/alpha/SKILL.md: unknown key 'required_zrd': did you mean 'required_zdr'?\n"


def test_it_prints_json_for_a_valid_repo(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha")
    code, out, _ = check(skill_repo, "--format", "json")
    assert code == 0
    assert json.loads(out) == {"ok": True, "skills": 1, "problems": [], "config": "registry.config.json"}


def test_it_prints_json_problems_and_exits_1(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha")
    skill_repo.add_skill("beta", version="1.0")
    code, out, _ = check(skill_repo, "--format", "json")
    assert code == 1
    assert json.loads(out) == {
        "ok": False,
        "skills": 1,
        "config": "registry.config.json",
        "problems": [
            {
                "path": "skills/beta/SKILL.md",
                "code": "invalid_version",
                "severity": "error",
                "message": "version '1.0' is not a semantic version; a version is three numbers "
                "MAJOR.MINOR.PATCH such as 1.0.0: write version: 1.0.0",
            }
        ],
    }


def test_without_a_config_it_says_so_in_one_line_that_is_not_a_problem(skill_repo: SkillRepo) -> None:
    skill_repo.remove("registry.config.json")
    skill_repo.add_skill("alpha")
    assert check(skill_repo) == (
        0,
        "registry.config.json: not found; using the built-in defaults\nOK: 1 skill valid.\n",
        "",
    )


def test_the_defaults_note_is_not_counted_among_problems(skill_repo: SkillRepo) -> None:
    skill_repo.remove("registry.config.json")
    skill_repo.add_skill("alpha", version="1.0")
    code, out, err = check(skill_repo)
    assert code == 1
    assert out.splitlines()[0] == "registry.config.json: not found; using the built-in defaults"
    assert len(out.splitlines()) == 2
    assert err == "1 problem found.\n"


def test_without_a_config_json_names_the_defaults_and_no_problem(skill_repo: SkillRepo) -> None:
    skill_repo.remove("registry.config.json")
    skill_repo.add_skill("alpha")
    code, out, _ = check(skill_repo, "--format", "json")
    assert code == 0
    assert json.loads(out) == {"ok": True, "skills": 1, "problems": [], "config": "defaults"}


def test_a_partial_config_governs_with_the_defaults_for_the_rest(skill_repo: SkillRepo) -> None:
    skill_repo.write("registry.config.json", '{"skills_dir": "plugins"}')
    skill_repo.write("plugins/alpha/SKILL.md", skill_md("alpha"))
    assert check(skill_repo) == (0, "OK: 1 skill valid.\n", "")


def test_an_absurd_config_value_is_one_invalid_config_problem(skill_repo: SkillRepo) -> None:
    skill_repo.write("registry.config.json", '{"limits": {"max_skills": ' + "9" * 5000 + "}}")
    code, out, _ = check(skill_repo, "--format", "json")
    assert code == 1
    [problem] = json.loads(out)["problems"]
    assert (problem["path"], problem["code"]) == ("registry.config.json", "invalid_config")
    assert "limits.max_skills" in problem["message"]


def test_it_rejects_a_changed_skill_without_a_bump_against_base(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha", "Old.\n")
    skill_repo.commit()
    skill_repo.add_skill("alpha", "New.\n")
    code, out, _ = check(skill_repo, "--base", "HEAD")
    assert code == 1
    assert out.startswith("skills/alpha/SKILL.md: content changed since the base revision")


def test_it_accepts_a_bumped_skill_against_base(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha", "Old.\n")
    skill_repo.commit()
    skill_repo.add_skill("alpha", "New.\n", version="1.1.0")
    assert check(skill_repo, "--base", "HEAD")[:2] == (0, "OK: 1 skill valid.\n")


def test_it_rejects_a_version_decrease_against_an_older_base(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha", version="2.0.0")
    first = skill_repo.commit()
    skill_repo.add_skill("alpha", version="1.0.0")
    skill_repo.commit()
    code, out, _ = check(skill_repo, "--base", first[:10], "--format", "json")
    assert code == 1
    assert [p["code"] for p in json.loads(out)["problems"]] == ["version_decreased"]


def test_it_ignores_the_version_rule_without_base(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha", "Old.\n")
    skill_repo.commit()
    skill_repo.add_skill("alpha", "New.\n")
    assert check(skill_repo)[0] == 0


def test_it_refuses_an_unknown_base_revision(skill_repo: SkillRepo) -> None:
    skill_repo.commit()
    with pytest.raises(CommandError, match="unknown revision") as excinfo:
        check(skill_repo, "--base", "no-such-branch")
    assert excinfo.value.returncode == 2


def test_it_refuses_a_base_in_a_directory_that_is_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="not a git repository"):
        run("--repo", str(tmp_path), "--base", "HEAD")


def test_it_refuses_a_repo_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="not a directory") as excinfo:
        run("--repo", str(tmp_path / "missing"))
    assert excinfo.value.returncode == 2


def test_it_rejects_an_unknown_format(skill_repo: SkillRepo) -> None:
    with pytest.raises(CommandError):
        check(skill_repo, "--format", "xml")


def test_it_defaults_to_skills_repo_path(skill_repo: SkillRepo, settings: Any) -> None:
    skill_repo.add_skill("alpha")
    settings.SKILLS_REPO_PATH = str(skill_repo.root)
    assert run() == (0, "OK: 1 skill valid.\n", "")


def test_it_keeps_each_problem_on_one_line_even_for_odd_file_names(skill_repo: SkillRepo) -> None:
    skill_repo.add_skill("alpha", files={"references/two\nlines.md": "x\n"}, files_list=[])
    code, out, _ = check(skill_repo)
    assert code == 1
    assert out.splitlines() == [
        "skills/alpha/references/two\\nlines.md: the file name holds the control character U+000A; rename it"
    ]


def test_acceptance_it_rejects_each_unsafe_skill_naming_the_file(skill_repo: SkillRepo) -> None:
    """The format's acceptance case (docs/reference.md#skill-format): a typo'd key, a string
    boolean, a symlink, binary content and a `..` path each fail the check with a message
    naming the file; the clean skill passes."""
    skill_repo.add_skill("clean", files={"references/a.md": "fine\n"})
    skill_repo.write("skills/typo/SKILL.md", skill_md("typo", required_zrd=True))
    skill_repo.write("skills/string-zdr/SKILL.md", skill_md("string-zdr", required_zdr="true"))
    skill_repo.add_skill("linked", files_list=["references/link.md"])
    symlink(skill_repo, "skills/linked/references/link.md", "../../clean/references/a.md")
    skill_repo.add_skill("nul", files={"references/data.txt": b"PK\x03\x04\0\0"})
    skill_repo.add_skill("latin1", files={"references/notes.txt": b"na\xefve\n"})
    skill_repo.add_skill("escape", files_list=["references/../../clean/references/a.md"])
    code, out, _ = check(skill_repo)
    assert code == 1
    lines = out.splitlines()
    assert lines == sorted(lines)
    assert lines == [
        "skills/escape/SKILL.md: files entry 'references/../../clean/references/a.md' has a '..' segment",
        "skills/latin1/references/notes.txt: is not valid UTF-8 (bad byte at offset 2)",
        "skills/linked/references/link.md: is a symlink; symlinks are not allowed",
        "skills/nul/references/data.txt: contains a NUL byte at offset 4; only text files are allowed",
        "skills/string-zdr/SKILL.md: required_zdr must be true or false (a YAML boolean), "
        "not the string 'true' (remove the quotes)",
        "skills/typo/SKILL.md: unknown key 'required_zrd': did you mean 'required_zdr'?",
    ]

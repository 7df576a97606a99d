"""skills-registry's argument handling (skillsite/cli.py); the installed script itself runs in
tests/test_skills_repo_templates.py."""

import pytest

from skillsite.cli import EXIT_USAGE, main


def test_it_prints_its_usage_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: skills-registry check")


@pytest.mark.parametrize("argv", [[], ["serve"], ["manage"], ["check_skills"]])
def test_it_refuses_an_unknown_or_missing_subcommand(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == EXIT_USAGE
    assert capsys.readouterr().err.startswith("usage: skills-registry")


@pytest.mark.parametrize("argv", [["publish", "HEAD"], ["manage", "migrate"]])
def test_it_refuses_to_touch_a_database_nobody_named(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(argv) == EXIT_USAGE
    assert (
        capsys.readouterr().err == f"skills-registry {argv[0]}: set DATABASE_URL to the registry's database\n"
    )

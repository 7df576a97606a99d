"""Every setting and every management command is documented (a setting nobody can find is a bug)."""

import re
from pathlib import Path

import pytest

from tests.support.project import PROJECT_DIR

DEPLOY_DOC = PROJECT_DIR / "docs" / "deploy.md"
README = PROJECT_DIR / "README.md"

# env_str("NAME"...), env_bool("NAME"...), ...: skillsite/env.py's readers (settings, gunicorn.conf.py).
_ENV_READ = re.compile(r"""\benv_(?:str|bool|int|float|list)\(\s*["']([A-Z][A-Z0-9_]*)["']""")
# Anything reading the environment around those readers would escape the scan.
_RAW_ENV_READ = re.compile(r"\bos\.(?:environ|getenv)\b")


def env_vars_read_in(path: Path) -> list[str]:
    return sorted(set(_ENV_READ.findall(path.read_text())))


def settings_env_vars() -> list[str]:
    return env_vars_read_in(PROJECT_DIR / "skillsite" / "settings.py")


def gunicorn_env_vars() -> list[str]:
    return env_vars_read_in(PROJECT_DIR / "gunicorn.conf.py")


def management_commands() -> list[str]:
    files = PROJECT_DIR.glob("*/management/commands/*.py")
    return sorted(path.stem for path in files if not path.stem.startswith("_"))


def mentions(text: str, name: str) -> bool:
    """`name` appears as a whole word (DATABASE_URL does not count for TEST_DATABASE_URL)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def test_a_command_counts_only_when_shown_as_one() -> None:
    assert documents_command("run `manage.py publish HEAD`", "publish")
    assert documents_command("manage prune_snapshots --keep 3", "prune_snapshots")
    assert documents_command("`snapshots` lists them", "snapshots")
    assert not documents_command("CI publishes each commit", "publish")
    assert not documents_command("manage.py publish_all", "publish")


def test_the_settings_scan_finds_the_environment_variables() -> None:
    # Guards the regular expression: if it stopped matching, every other test here would pass vacuously.
    names = settings_env_vars()
    assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "CACHE_URL", "SKILLS_READ_TOKENS"} <= set(names)
    assert {"GUNICORN_WORKERS", "GUNICORN_BIND", "FORWARDED_ALLOW_IPS"} <= set(gunicorn_env_vars())


@pytest.mark.parametrize("path", ["skillsite/settings.py", "gunicorn.conf.py"])
def test_the_environment_is_read_only_through_the_typed_readers(path: str) -> None:
    assert not _RAW_ENV_READ.search((PROJECT_DIR / path).read_text()), (
        f"{path} reads os.environ directly: use skillsite/env.py's readers (the scan above sees those)"
    )


@pytest.mark.parametrize("name", settings_env_vars())
def test_every_setting_is_documented_in_deploy_md(name: str) -> None:
    assert mentions(DEPLOY_DOC.read_text(), name), (
        f"{name} is read in skillsite/settings.py but not documented in docs/deploy.md"
    )


@pytest.mark.parametrize("name", gunicorn_env_vars())
def test_every_gunicorn_variable_is_documented_in_deploy_md(name: str) -> None:
    assert mentions(DEPLOY_DOC.read_text(), name), (
        f"{name} is read in gunicorn.conf.py but not documented in docs/deploy.md"
    )


def documents_command(text: str, name: str) -> bool:
    """Shown as a command: `manage.py name`, `manage name` (deploy.md's helper) or `name` in code."""
    return re.search(rf"(?:\bmanage(?:\.py)?\s+|`){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def test_every_management_command_is_documented() -> None:
    docs = DEPLOY_DOC.read_text() + README.read_text()
    missing = [name for name in management_commands() if not documents_command(docs, name)]
    assert not missing, f"management commands not documented in docs/deploy.md or README.md: {missing}"


def test_the_readme_authoring_example_passes_check_skills_without_a_warning(tmp_path: Path) -> None:
    from io import StringIO

    from django.core.management import call_command

    from tests.support.repos import SkillRepo

    example = re.search(r"```markdown\n(.*?)```", README.read_text(), flags=re.S)
    assert example is not None, "README.md has no ```markdown example of a SKILL.md"
    text = example.group(1)
    skill_id = re.search(r"^id: (\S+)", text, flags=re.M)
    assert skill_id is not None
    repo = SkillRepo(tmp_path / "repo")
    repo.write(f"skills/{skill_id.group(1)}/SKILL.md", text)
    for listed in re.findall(r"^  - (\S+)$", text, flags=re.M):
        repo.write(f"skills/{skill_id.group(1)}/{listed}", "An example file.\n")
    out = StringIO()

    call_command("check_skills", "--repo", str(repo.root), stdout=out, stderr=StringIO())

    assert out.getvalue() == "OK: 1 skill valid.\n"

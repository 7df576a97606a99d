"""Every setting and every management command is documented (a setting nobody can find is a bug)."""

import re
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parent.parent
DEPLOY_DOC = PROJECT_DIR / "docs" / "deploy.md"
README = PROJECT_DIR / "README.md"

# env_str("NAME"...), env_bool("NAME"...), ... in settings.py; os.environ.get("NAME"...) in gunicorn.conf.py.
_SETTINGS_ENV = re.compile(r"""\benv_(?:str|bool|int|float|list)\(\s*["']([A-Z][A-Z0-9_]*)["']""")
_OS_ENV = re.compile(r"""\bos\.environ\.get\(\s*["']([A-Z][A-Z0-9_]*)["']""")


def settings_env_vars() -> list[str]:
    text = (PROJECT_DIR / "skillsite" / "settings.py").read_text()
    return sorted(set(_SETTINGS_ENV.findall(text)))


def gunicorn_env_vars() -> list[str]:
    return sorted(set(_OS_ENV.findall((PROJECT_DIR / "gunicorn.conf.py").read_text())))


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

"""`make run`'s helpers: local secrets created once, and connection lines that match the docs."""

import re
import shlex
import stat
from pathlib import Path

import pytest

from skillsite import localrun
from tests.support.project import PROJECT_DIR

DOCS = PROJECT_DIR / "docs" / "client-setup.md"


@pytest.fixture
def local_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(localrun, "VAR_DIR", tmp_path / "var")
    monkeypatch.setattr(localrun, "LOCAL_ENV", tmp_path / "var" / "local.env")
    return tmp_path / "var" / "local.env"


def _exports(path: Path) -> dict[str, str]:
    pairs = re.findall(r"^export (\w+)=(.*)$", path.read_text(), flags=re.M)
    return {key: shlex.split(value)[0] for key, value in pairs}


def test_prepare_creates_a_private_secret_key_and_read_token_once(local_env: Path) -> None:
    localrun.prepare()
    first = _exports(local_env)
    assert len(first["DJANGO_SECRET_KEY"]) >= 50
    assert first["SKILLS_READ_TOKENS"].startswith("local-")
    assert stat.S_IMODE(local_env.stat().st_mode) == 0o600

    localrun.prepare()
    assert _exports(local_env) == first, "a second run must keep the same secrets"


def test_the_banner_prints_the_documented_claude_and_codex_commands(local_env: Path) -> None:
    localrun.prepare()
    token = _exports(local_env)["SKILLS_READ_TOKENS"]
    text = localrun.banner("127.0.0.1", 8000)
    url = "http://127.0.0.1:8000/mcp"

    docs = DOCS.read_text()
    for template in (
        'claude mcp add --transport http skills "$SKILLS_URL" --header "Authorization: Bearer $SKILLS_TOKEN"',
        'codex mcp add skills --url "$SKILLS_URL" --bearer-token-env-var SKILLS_TOKEN',
    ):
        assert template in docs, f"docs/client-setup.md no longer shows: {template}"
        printed = template.replace('"$SKILLS_URL"', url).replace("$SKILLS_TOKEN", token)
        assert printed in text, f"make run does not print: {printed}"
    assert f"export SKILLS_TOKEN={token}" in text
    assert "docs/client-setup.md" in text


def test_the_banner_refuses_a_local_env_without_a_token(local_env: Path) -> None:
    local_env.parent.mkdir()
    local_env.write_text("export DJANGO_SECRET_KEY=x\n")
    with pytest.raises(SystemExit, match="SKILLS_READ_TOKENS"):
        localrun.banner("127.0.0.1", 8000)

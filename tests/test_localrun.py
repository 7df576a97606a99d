"""`make run`'s helpers: local secrets created once, and connection lines that match the docs."""

import re
import shlex
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from catalog.publishing import publish
from skillsite import localrun
from tests.support.processes import free_port
from tests.support.project import PROJECT_DIR
from tests.support.repos import SkillRepo

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


def test_check_port_names_a_taken_address_and_the_fix() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(localrun.AddressInUse) as refused:
            localrun.check_port("127.0.0.1", port)
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "skillsite.localrun",
                "check-port",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            cwd=PROJECT_DIR,
            capture_output=True,
            text=True,
            timeout=60,
        )
    message = f"127.0.0.1:{port} is already in use"
    assert message in str(refused.value) and f"make run PORT={port + 1}" in str(refused.value)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [f"make run: {refused.value}"]


def test_check_port_passes_a_free_address_and_leaves_it_free() -> None:
    port = free_port()
    localrun.check_port("127.0.0.1", port)
    with socket.socket() as again:
        again.bind(("127.0.0.1", port))  # nothing kept it


@pytest.mark.django_db
def test_the_banner_counts_the_skills_the_printed_token_sees_and_those_zdr_hides(
    local_env: Path, skill_repo: SkillRepo, settings: Any
) -> None:
    localrun.prepare()
    token = _exports(local_env)["SKILLS_READ_TOKENS"]
    settings.SKILLS_READ_TOKENS = [token]
    assert localrun.visibility_line(token) == "No snapshot is published yet; the token below sees no skills."
    skill_repo.add_skill("open-one")
    skill_repo.add_skill("open-two")
    skill_repo.add_skill("secret", required_zdr=True)
    publish(skill_repo.root, skill_repo.commit())

    line = localrun.visibility_line(token)

    hidden = "(1 is ZDR-only, hidden from tokens not cleared for ZDR)"
    assert line == f"3 skills published; the token below sees 2 {hidden}"
    assert line in localrun.banner("127.0.0.1", 8000, line).splitlines()
    settings.SKILLS_ZDR_TOKENS = [token]
    settings.SKILLS_READ_TOKENS = []
    assert localrun.visibility_line(token) == "3 skills published; the token below sees 3"


def test_the_banner_connects_through_loopback_when_serving_every_interface(local_env: Path) -> None:
    localrun.prepare()
    wildcard = "0.0.0.0"  # noqa: S104 - the address make run is given, not a bind
    text = localrun.banner(wildcard, 8000)
    assert "serving on http://127.0.0.1:8000" in text and wildcard not in text

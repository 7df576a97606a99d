"""The first hour of a new user (issue 16), as the README tells it: a fresh clone of this
commit, a clean environment (a new HOME, no pip cache, no virtualenv, no variable of this
test run), `make run`, then the printed `claude mcp add` line's URL and header given to
the official MCP SDK client, which connects and lists the tools. What `make run` printed
is checked against the README's block of it, line by line.

No network but 127.0.0.1 exists here: pip installs from this machine's own package index
and wheelhouse (its global pip configuration, which a new HOME does not change).
"""

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.processes import free_port
from tests.support.project import PROJECT_DIR

pytestmark = pytest.mark.e2e

README = PROJECT_DIR / "README.md"
# The README's port; the test serves on a free one and reads the block with it.
README_PORT = "8000"
TOOLS = ["skills_get", "skills_get_file", "skills_list", "skills_search"]
# A first install from nothing (pip, the venv) took about 20 s here; the margin is for a busy machine.
SERVE_TIMEOUT_SECONDS = 300


def readme_block() -> list[str]:
    """The lines of README's block of what a first `make run` prints (placeholders `<...>`)."""
    text = README.read_text()
    marker = "<!-- tests/e2e/test_fresh_clone.py"
    block = re.search(r"```text\n(.*?)```", text[text.index(marker) :], flags=re.S)
    assert block is not None, "README.md lost its block of make run's output"
    return [line for line in block.group(1).splitlines() if line.strip()]


def line_pattern(line: str, port: int) -> re.Pattern[str]:
    """A README line as a pattern: each `<placeholder>` stands for any text without white space
    (`<counts>` for anything), and the README's port is the one served."""
    parts = re.split(r"(<[A-Za-z]+>)", line.replace(f":{README_PORT}", f":{port}"))
    pattern = "".join(
        (".+?" if part == "<counts>" else r"\S+") if re.fullmatch(r"<[A-Za-z]+>", part) else re.escape(part)
        for part in parts
    )
    return re.compile(pattern)


def clean_environment(home: Path) -> dict[str, str]:
    """What a person's new shell has: a PATH without this test run's virtualenv, a HOME of
    its own, no pip cache; nothing else of this run (no DATABASE_URL, no token)."""
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(
        entry for entry in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep) if entry != venv_bin
    )
    return {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8", "PIP_NO_CACHE_DIR": "1"}


@pytest.fixture
def fresh_make_run(tmp_path: Path) -> Iterator[tuple[int, Path, subprocess.Popen[str]]]:
    clone = tmp_path / "skills-registry"
    subprocess.run(["git", "clone", "--quiet", str(PROJECT_DIR), str(clone)], check=True, timeout=120)
    assert not (clone / ".venv").exists() and not (clone / "var").exists()
    home = tmp_path / "home"
    home.mkdir()
    port = free_port()
    log = tmp_path / "make-run.log"
    with open(log, "w") as output:
        process = subprocess.Popen(
            ["make", "run", f"PORT={port}"],
            cwd=clone,
            env=clean_environment(home),
            stdout=output,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    try:
        yield port, log, process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


def wait_until_served(port: int, log: Path, process: subprocess.Popen[str]) -> str:
    deadline = time.monotonic() + SERVE_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        assert process.poll() is None, f"make run exited:\n{log.read_text()}"
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return log.read_text()
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"make run did not serve within {SERVE_TIMEOUT_SECONDS}s:\n{log.read_text()}")


def list_tools(url: str, headers: dict[str, str]) -> list[str]:
    async def main() -> list[str]:
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                return sorted(tool.name for tool in (await client.list_tools()).tools)

    return anyio.run(main)


def test_a_fresh_clone_serves_with_make_run_and_the_printed_command_connects(
    fresh_make_run: tuple[int, Path, subprocess.Popen[str]],
) -> None:
    port, log, process = fresh_make_run

    output = wait_until_served(port, log, process)

    # README's block, line by line and in order, among everything make run printed.
    lines = output.splitlines()
    assert lines[0].startswith("Installing the runtime dependencies"), output
    assert f"`{lines[0]}`" in README.read_text(), "README quotes make run's first line"
    position = 0
    for expected in readme_block():
        pattern = line_pattern(expected, port)
        found = next((i for i in range(position, len(lines)) if pattern.fullmatch(lines[i])), None)
        assert found is not None, f"make run did not print, after line {position}:\n{expected}\n\n{output}"
        position = found + 1
    assert "Applying " not in output, "migrations in one line"
    assert "BuildBackendWarning" not in output and "Please be careful" not in output, "pip's install is quiet"

    # The printed Claude Code command, taken apart as the shell would: its URL and its header.
    [command] = [line.strip() for line in lines if line.strip().startswith("claude mcp add ")]
    words = shlex.split(command)
    url = words[words.index("skills") + 1]
    name, _, value = words[words.index("--header") + 1].partition(": ")
    assert url == f"http://127.0.0.1:{port}/mcp"

    assert list_tools(url, {name: value}) == TOOLS

"""The landing page in a real browser: headless Chromium against gunicorn serving the registry.

The screenshot must be a real render of the styled page (a blocked style sheet, an error page
or a blank window all fail), and the DOM Chromium built must hold the MCP URL and nothing of
any skill.
"""

import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from skillsite import connect
from tests.landing import png
from tests.landing.pagetext import code_blocks
from tests.support.e2e import serving_standard_registry
from tests.support.tokens import READ_TOKEN, ZDR_TOKEN

pytestmark = pytest.mark.e2e

INSTALL_CHROMIUM = "apt-get update && apt-get install -y chromium"
WIDTH, HEIGHT = 1200, 900
# The page's code blocks (--code-bg in landing.css, light scheme): present only if the
# style sheet was applied, i.e. the policy's hash admitted it.
CODE_BACKGROUND = (0x0F, 0x17, 0x2A)


@dataclass
class Served:
    url: str
    sha: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    workdir = tmp_path_factory.mktemp("landing-browser")
    with serving_standard_registry(workdir, workers=1, LOG_FORMAT="plain") as registry:
        yield Served(url=f"{registry.url}/", sha=registry.sha)


def chromium(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.fail(f"the landing page's browser test needs Chromium; install it: {INSTALL_CHROMIUM}")
    command = [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={workdir / 'profile'}",
        f"--window-size={WIDTH},{HEIGHT}",
        *args,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"chromium failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done


def test_chromium_renders_the_styled_page(served: Served, tmp_path: Path) -> None:
    shot = tmp_path / "landing.png"
    chromium(tmp_path, f"--screenshot={shot}", served.url)
    image = png.decode(shot.read_bytes())
    assert (image.width, image.height) == (WIDTH, HEIGHT)

    colours = Counter(pixel[:3] for pixel in image.pixels())
    background, background_count = colours.most_common(1)[0]
    others = image.width * image.height - background_count
    assert len(colours) >= 50, f"{len(colours)} colours: not a rendered page ({shot})"
    assert others / (image.width * image.height) >= 0.10, f"mostly blank ({shot})"
    assert background != (255, 255, 255), f"the page's background colour is missing: unstyled? ({shot})"
    code_pixels = sum(count for colour, count in colours.items() if colour == CODE_BACKGROUND)
    assert code_pixels >= 10_000, f"no styled code blocks ({code_pixels} pixels): CSS refused? ({shot})"


def test_the_dom_chromium_builds_holds_the_mcp_url_and_nothing_of_a_skill(
    served: Served, tmp_path: Path
) -> None:
    dom = chromium(tmp_path, "--dump-dom", served.url).stdout
    mcp_url = served.url + "mcp"
    assert f'<code class="endpoint" id="mcp-url">{mcp_url}</code>' in dom
    assert f'<code class="sha" id="registry-sha">{served.sha}</code>' in dom
    assert code_blocks(dom)[1:] == [client.command for client in connect.clients(mcp_url)]
    for secret in (READ_TOKEN, ZDR_TOKEN, "secret-ops", "Secret Ops", "alpha", "Review pull requests"):
        assert secret not in dom, secret


def test_without_chromium_the_test_fails_saying_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match=r"apt-get update && apt-get install -y chromium"):
        chromium(tmp_path, "--version")

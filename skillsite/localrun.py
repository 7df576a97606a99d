"""Helpers for `make run`: local secrets on first run, and how to connect.

`prepare` writes var/local.env once (a secret key and a local read token), so a
fresh clone serves without any configuration; `banner` prints the commands that
connect MCP clients to the local instance.
"""

import argparse
import secrets
import shlex
from pathlib import Path

from skillsite import connect

VAR_DIR = Path(__file__).resolve().parent.parent / "var"
LOCAL_ENV = VAR_DIR / "local.env"


def prepare() -> None:
    VAR_DIR.mkdir(exist_ok=True)
    if LOCAL_ENV.exists():
        return
    values = {
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "SKILLS_READ_TOKENS": "local-" + secrets.token_urlsafe(32),
    }
    lines = [f"export {key}={shlex.quote(value)}" for key, value in values.items()]
    LOCAL_ENV.write_text("# Created by `make run` on first run; keep it private.\n" + "\n".join(lines) + "\n")
    LOCAL_ENV.chmod(0o600)


def read_local_token() -> str:
    for line in LOCAL_ENV.read_text().splitlines():
        if line.startswith("export SKILLS_READ_TOKENS="):
            return shlex.split(line.partition("=")[2])[0].split(",")[0]
    raise SystemExit(f"{LOCAL_ENV} has no SKILLS_READ_TOKENS line; delete it and run `make run` again")


def banner(host: str, port: int) -> str:
    url = f"http://{host}:{port}/mcp"
    token = read_local_token()
    return "\n".join(
        [
            "",
            f"Skills Registry serving on http://{host}:{port}  (health: http://{host}:{port}/healthz)",
            f"Local read token (from {LOCAL_ENV.relative_to(VAR_DIR.parent)}): {token}",
            "",
            "Connect Claude Code:",
            f"  {connect.claude_code(url, token)}",
            "Connect Codex:",
            f"  {connect.export_token(token)}",
            f"  {connect.codex(url)}",
            "OpenCode and web connectors: see docs/client-setup.md",
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m skillsite.localrun")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare")
    show = sub.add_parser("banner")
    show.add_argument("--host", default="127.0.0.1")
    show.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    if args.command == "prepare":
        prepare()
    else:
        print(banner(args.host, args.port))


if __name__ == "__main__":
    main()

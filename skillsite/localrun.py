"""Helpers for `make run`: local secrets on first run, the address, and how to connect.

`prepare` writes var/local.env once (a secret key and a local read token), so a
fresh clone serves without any configuration; `check-port` stops `make run` with one
line before anything else when the address is taken (gunicorn would otherwise retry it
five times, after the banner); `migrated` is the one line that replaces the migrations'
forty; `banner` prints the commands that connect MCP clients to the local instance and
how many skills the printed token sees.
"""

import argparse
import errno
import os
import secrets
import shlex
import socket
import sys
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


class AddressInUse(Exception):
    """Something else listens on the address `make run` was asked to serve on."""


def check_port(host: str, port: int) -> None:
    """Bind the address as gunicorn will (SO_REUSEADDR, so a socket in TIME_WAIT from the
    last run does not count) and let it go again; AddressInUse names the address and the fix."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise AddressInUse(
            f"cannot serve on {host}:{port}: {exc.strerror}; set HOST to an address of this machine"
        ) from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise AddressInUse(
                    f"{host}:{port} is already in use (another server listens there); stop it, "
                    f"or serve on another port: make run PORT={port + 1}"
                ) from None
            raise AddressInUse(f"cannot serve on {host}:{port}: {exc.strerror}") from None


def migrate() -> str:
    """Django's migrate without its line per migration (an error still raises, with its
    traceback on stderr); the one line it returns says what the database holds now."""
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.recorder import MigrationRecorder

    def applied() -> int:
        recorder = MigrationRecorder(connection)
        return len(recorder.applied_migrations()) if recorder.has_table() else 0

    before = applied()
    call_command("migrate", interactive=False, verbosity=0)
    after = applied()
    return f"database ready ({after} migrations applied, {after - before} of them now)"


def visibility_line(token: str) -> str:
    """How many skills the active snapshot has and how many `token` sees, each counted through
    the catalog's own view for that caller's clearance (docs/reference.md#callers-and-clearance)."""
    from accounts.callers import resolve
    from catalog.index import active_view

    everyone = active_view(zdr_cleared=True)
    if everyone is None:
        return "No snapshot is published yet; the token below sees no skills."
    seen = active_view(resolve(token).zdr_cleared)
    total, visible = len(everyone.skills), len(seen.skills) if seen else 0
    hidden = total - visible
    line = f"{total} skill{'' if total == 1 else 's'} published; the token below sees {visible}"
    if hidden:
        line += (
            f" ({hidden} {'is' if hidden == 1 else 'are'} ZDR-only, hidden from tokens not cleared for ZDR)"
        )
    return line


# A wildcard address is where gunicorn listens, not a name to connect to: a client sending
# `Host: 0.0.0.0` would be refused by ALLOWED_HOSTS. The banner connects through loopback.
_WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "[::]": "[::1]"}  # noqa: S104 - names compared


def banner(host: str, port: int, skills_line: str = "") -> str:
    host = _WILDCARDS.get(host, host)
    url = f"http://{host}:{port}/mcp"
    token = read_local_token()
    return "\n".join(
        [
            "",
            f"Skills Registry serving on http://{host}:{port}  (health: http://{host}:{port}/healthz)",
            *([skills_line] if skills_line else []),
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
    sub.add_parser("migrate")
    for name in ("check-port", "banner"):
        address = sub.add_parser(name)
        address.add_argument("--host", default="127.0.0.1")
        address.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    if args.command == "prepare":
        prepare()
    elif args.command == "check-port":
        try:
            check_port(args.host, args.port)
        except AddressInUse as exc:
            print(f"make run: {exc}", file=sys.stderr)
            sys.exit(1)
    else:
        _setup_django()
        if args.command == "migrate":
            print(migrate())
        else:
            print(banner(args.host, args.port, visibility_line(read_local_token())))


def _setup_django() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillsite.settings")
    django.setup()


if __name__ == "__main__":
    main()

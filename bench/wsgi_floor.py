"""The /mcp floor against the ceiling, in instructions, through the WSGI path gunicorn takes.

    .venv/bin/python -m bench.wsgi_floor                 # both apps under callgrind: the table
    .venv/bin/python -m bench.wsgi_floor --cpu           # no valgrind: CPU µs (process_time), indicative

Each application runs in its own process (Django's settings are per process): the ceiling
(`bench.ceiling.wsgi`) and the registry (`skillsite.wsgi`, production settings, the bundled
skills/ at HEAD published into a fresh SQLite file first, outside valgrind). A request is
what gunicorn's gthread worker does with one (`ThreadWorker.handle_request`): the request head
parsed by gunicorn's own RequestParser from a keep-alive connection holding the bytes wrk
sends (bench/wrk/post.lua's headers, the bench's token), `gunicorn.http.wsgi.create`'s
environ and Response, the application called, its iterator written through the Response
and closed, the gunicorn.conf.py hooks. The socket is an object in memory: no system call
is counted, nor gthread's event loop and thread pool (the same for every application).

Every item is run twice under `valgrind --tool=callgrind --instr-atstart=no`, with `--small`
and `--large` repetitions, each between callgrind_control's zero and dump; the difference
of the two counts over the difference of repetitions is one repetition's instructions, which
no other load on the machine moves. Items are whole requests (the ceiling, ping, warm
skills_get), whole requests with one piece taken away (a middleware, the signal receivers,
the access line: what that piece costs in place), and pieces alone on a prepared request.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.servers import TOKEN
from bench.wsgi_floor_table import per_repetition, table, totals
from bench.wsgi_memory import Gunicorn
from tests.support.project import PROJECT_DIR

# The body bench/serve.py sends to the ceiling: its view never reads it.
CEILING_BODY = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "skills_list", "arguments": {"limit": 50}},
}
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def control(*arguments: str) -> bool:
    """callgrind_control on this process; False when it is not running under callgrind."""
    result = subprocess.run(
        ["callgrind_control", *arguments, str(os.getpid())], check=False, capture_output=True, text=True
    )
    return result.returncode == 0 and "not detected" not in result.stderr + result.stdout


def count(label: str, run: Callable[[int], None], small: int, large: int, cpu: bool) -> None:
    """`run(n)` twice, each between a zero and a dump named `label:n` (or timed, with --cpu)."""
    run(20)  # warm: every lazily made thing made
    for repetitions in (small, large):
        if cpu:
            started = time.process_time()
            run(repetitions)
            print(f"CPU {label}:{repetitions} {time.process_time() - started:.6f}", flush=True)
            continue
        control("--zero")
        control("--instr=on")
        run(repetitions)
        control("--instr=off")
        control(f"--dump={label}:{repetitions}")


def requests_of(server: Gunicorn, body: bytes) -> Callable[[int], None]:
    def run(repetitions: int) -> None:
        server.connect(body, repetitions)
        for _ in range(repetitions):
            server.request()

    return run


def still(body: bytes, status: str, headers: list[tuple[str, str]]) -> Callable[..., Any]:
    """A WSGI application answering the same bytes every time: gunicorn's part of a request."""

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        environ["wsgi.input"].read()
        start_response(status, headers)
        return [body]

    return application


def ceiling_items(small: int, large: int, cpu: bool) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.ceiling.settings"
    from django.core.serializers.json import DjangoJSONEncoder

    from bench.ceiling.urls import PAYLOAD
    from bench.ceiling.wsgi import application

    body = json.dumps(CEILING_BODY).encode()
    server = Gunicorn(application)
    count("ceiling", requests_of(server, body), small, large, cpu)
    answer = json.dumps(PAYLOAD, cls=DjangoJSONEncoder).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(answer)))]
    count(
        "ceiling:gunicorn", requests_of(Gunicorn(still(answer, "200 OK", headers)), body), small, large, cpu
    )
    assert server.statuses == {"200 OK"}, server.statuses


def registry_items(db_path: Path, small: int, large: int, cpu: bool, whole: bool) -> None:
    from bench.inprocess import configure

    configure(db_path, registry_env())
    import logging

    sink = open(os.devnull, "w")
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(sink)
    from django.conf import settings
    from django.core import signals
    from django.core.handlers.wsgi import WSGIRequest

    from catalog.index import active_view
    from skillsite.wsgi import application

    view = active_view(False)
    assert view is not None
    get = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "skills_get", "arguments": {"id": view.skills[0].id}},
    }
    bodies = {"ping": json.dumps(PING).encode(), "skills_get": json.dumps(get).encode()}
    server = Gunicorn(application)
    for name, body in bodies.items():
        count(name, requests_of(server, body), small, large, cpu)
    if whole:
        return

    # Whole requests with one piece taken away.
    middleware = list(settings.MIDDLEWARE)
    for index, path in enumerate(middleware):
        settings.MIDDLEWARE = middleware[:index] + middleware[index + 1 :]
        application.load_middleware()
        for name, body in bodies.items():
            count(f"{name}-{path.rsplit('.', 1)[1]}", requests_of(server, body), small, large, cpu)
    settings.MIDDLEWARE = middleware
    application.load_middleware()
    receivers = {
        signal: list(signal.receivers) for signal in (signals.request_started, signals.request_finished)
    }
    for signal in receivers:
        signal.receivers = []
        signal.sender_receivers_cache.clear()
    for name, body in bodies.items():
        count(f"{name}-signals", requests_of(server, body), small, large, cpu)
    for signal, kept in receivers.items():
        signal.receivers = kept
        signal.sender_receivers_cache.clear()
    from mcpapi import access_log, views

    views.access_log = type(
        "Silent", (), {"write": staticmethod(lambda *args: None), "request_id": access_log.request_id}
    )  # type: ignore[assignment]
    for name, body in bodies.items():
        count(f"{name}-access_line", requests_of(server, body), small, large, cpu)
    views.access_log = access_log
    assert server.statuses == {"200 OK"}, server.statuses
    pieces(server, bodies, small, large, cpu, WSGIRequest)


def pieces(
    server: Gunicorn, bodies: dict[str, bytes], small: int, large: int, cpu: bool, WSGIRequest: Any
) -> None:
    """Each piece of the registry's own path alone, on a request built as gunicorn builds it,
    and gunicorn's part of each request: a still application giving the registry's answer."""
    captured: dict[str, Any] = {}

    def capture(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        captured["environ"] = dict(environ)
        start_response("200 OK", [])
        return [b""]

    probe = Gunicorn(capture)
    for name, body in bodies.items():
        requests_of(probe, body)(1)
        base = captured["environ"]
        pieces_of(name, body, base, small, large, cpu, WSGIRequest)
        answered: dict[str, Any] = {}

        def keep(status: str, headers: list[tuple[str, str]]) -> None:
            answered.update(status=status, headers=headers)  # noqa: B023 - used at once

        environ = dict(base)
        environ["wsgi.input"] = io.BytesIO(body)
        answer = b"".join(server.application(environ, keep))
        still_one = still(answer, answered["status"], answered["headers"])
        count(f"{name}:gunicorn", requests_of(Gunicorn(still_one), body), small, large, cpu)


# The pieces skills_get shares with ping, measured once.
_SHARED = ("nothing", "started", "finished", "resolve", "request_id", "caller", "access_line")


def pieces_of(
    name: str, body: bytes, base: dict[str, Any], small: int, large: int, cpu: bool, WSGIRequest: Any
) -> None:
    from django.core import signals
    from django.core.handlers.wsgi import WSGIHandler
    from django.urls import get_resolver

    from mcpapi import access_log, admission, protocol
    from mcpapi.jsonrpc import parse_message

    resolver = get_resolver()

    def fresh() -> Any:
        environ = dict(base)
        environ["wsgi.input"] = io.BytesIO(body)
        return WSGIRequest(environ)

    request = fresh()
    caller = admission.caller(request)
    headers = admission.Headers(request)
    message = parse_message(admission.body(fresh()))
    outcome = protocol.answer(message, caller, headers)

    def loop(work: Callable[[], object]) -> Callable[[int], None]:
        def run(repetitions: int) -> None:
            for _ in range(repetitions):
                work()

        return run

    def response() -> None:
        # Not closed: HttpResponse.close() sends request_finished, the row of its own.
        built = outcome.response()
        built["X-Request-ID"] = "0123456789abcdef0123456789abcdef"

    items: dict[str, Callable[[], object]] = {
        "nothing": lambda: None,
        "started": lambda: signals.request_started.send(sender=WSGIHandler, environ=base),
        "finished": lambda: signals.request_finished.send(sender=WSGIHandler),
        "wsgirequest": fresh,
        "wsgirequest+body": lambda: admission.body(fresh()),
        "resolve": lambda: resolver.resolve("/mcp"),
        "request_id": lambda: access_log.request_id(request),
        "caller": lambda: admission.check_budget(admission.caller(request)),
        "parse": lambda: parse_message(body),
        "answer": lambda: protocol.answer(message, caller, headers),
        "response": response,
        "access_line": lambda: access_log.write("0123456789abcdef0123456789abcdef", caller, outcome, 0.42),
    }
    for label, work in items.items():
        if name != "ping" and label in _SHARED:
            continue
        count(f"{name}.{label}", loop(work), small, large, cpu)


def registry_env() -> dict[str, str]:
    return {"SKILLS_READ_TOKENS": TOKEN, "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost"}


def run_child(app: str, db_path: Path, out: Path, args: argparse.Namespace) -> dict[str, int]:
    argv = [sys.executable, "-m", "bench.wsgi_floor", "--child", app, "--db", str(db_path)]
    argv += ["--small", str(args.small), "--large", str(args.large)] + (["--whole"] if args.whole else [])
    if args.cpu:
        result = subprocess.run([*argv, "--cpu"], check=True, capture_output=True, text=True, cwd=PROJECT_DIR)
        return {
            label: round(float(seconds) * 1e9)  # nanoseconds, to share the arithmetic
            for label, seconds in (
                line.split()[1:] for line in result.stdout.splitlines() if line.startswith("CPU ")
            )
        }
    directory = out / app
    directory.mkdir()
    valgrind = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={directory}/callgrind.out",
    ]
    subprocess.run([*valgrind, *argv], check=True, capture_output=True, cwd=PROJECT_DIR)
    return totals(directory)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--small", type=int, default=50)
    parser.add_argument("--large", type=int, default=250)
    parser.add_argument("--cpu", action="store_true", help="time with process_time instead of callgrind")
    parser.add_argument(
        "--whole",
        action="store_true",
        help="the registry's whole ping and skills_get only (no ceiling, no pieces)",
    )
    parser.add_argument("--json", type=Path, help="also write the per-repetition figures here")
    parser.add_argument(
        "--repo", type=Path, default=PROJECT_DIR, help="the git repository whose skills/ at HEAD is published"
    )
    parser.add_argument("--child", choices=("ceiling", "registry", "prepare"), help=argparse.SUPPRESS)
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child == "prepare":
        from bench.inprocess import setup_published

        setup_published(args.db, args.repo, registry_env())
        return 0
    if args.child == "ceiling":
        ceiling_items(args.small, args.large, args.cpu)
        return 0
    if args.child == "registry":
        registry_items(args.db, args.small, args.large, args.cpu, args.whole)
        return 0
    with tempfile.TemporaryDirectory() as work:
        db_path = Path(work) / "db.sqlite3"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.wsgi_floor",
                "--child",
                "prepare",
                "--db",
                str(db_path),
                "--repo",
                str(args.repo),
            ],
            check=True,
            cwd=PROJECT_DIR,
        )
        figures: dict[str, int] = {}
        for app in ("registry",) if args.whole else ("ceiling", "registry"):
            figures.update(run_child(app, db_path, Path(work), args))
    counts = per_repetition(figures, args.small, args.large)
    if args.json:
        args.json.write_text(json.dumps(counts, indent=1, sort_keys=True))
    print(table(counts, "CPU ns" if args.cpu else "instructions"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

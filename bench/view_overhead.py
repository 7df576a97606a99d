"""What serving /mcp through a DRF APIView would cost, against the plain Django view it is.

    .venv/bin/python -m bench.view_overhead [--requests 5000] [--runs 7]
    valgrind --tool=callgrind --instr-atstart=no \
        .venv/bin/python -m bench.view_overhead --callgrind drf:ping --requests 250

Both variants run in this one process over the same published database (the bundled skills/
at HEAD, in a temporary SQLite file) and the same pieces (mcpapi.admission, refusals,
protocol, access_log). The DRF variant is the APIView a port would be: DRF's authentication
(a BaseAuthentication around accounts.authentication.bearer_token and resolve, defined
here: the product has no DRF view), permission (IsAuthenticated), throttle
(mcpapi.throttling.CallerRateThrottle, reading the caller from request.user) and exception
handling (handle_exception mapping DRF's exceptions to our refusals), with DRF's content
negotiation and response headers turned off so that both answer byte for byte the same.

Each run sends `--requests` requests of one kind through django.test.Client (the whole
middleware stack) and measures the process's CPU time (time.process_time), not wall time:
the machine may be shared. Runs alternate between the variants; the report gives the median
CPU microseconds per request of each and the spread of the plain variant's runs (the noise).
With --callgrind, callgrind counts the instructions of the requests of one variant and kind
only (setup and warm-up are not instrumented): the difference of two such counts (e.g. 250
and 50 requests) over the difference in requests is a figure no other load can move.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
TOKEN = "bench-static-read-token"


def _setup(db_path: Path) -> None:
    from bench.inprocess import setup_published

    setup_published(db_path, PROJECT_DIR, {"SKILLS_READ_TOKENS": TOKEN})
    # The access log is written as in production, into /dev/null rather than a terminal.
    sink = open(os.devnull, "w")  # kept open for the life of the process
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(sink)


def drf_urlconf() -> object:
    """A URLconf serving /mcp through a DRF APIView built from the same pieces."""
    from types import ModuleType

    from django.conf import settings
    from django.http import HttpRequest, HttpResponse
    from django.urls import path
    from rest_framework import exceptions
    from rest_framework.authentication import BaseAuthentication
    from rest_framework.negotiation import BaseContentNegotiation
    from rest_framework.permissions import IsAuthenticated
    from rest_framework.renderers import JSONRenderer
    from rest_framework.request import Request
    from rest_framework.throttling import SimpleRateThrottle
    from rest_framework.views import APIView

    from accounts.authentication import WWW_AUTHENTICATE, bearer_token
    from accounts.callers import Caller, resolve
    from accounts.errors import AuthError
    from accounts.errors import NotAuthenticated as NoCredentials
    from mcpapi import access_log, admission, protocol, refusals, throttling
    from mcpapi.jsonrpc import MalformedMessage, parse_message
    from mcpapi.refusals import Refusal

    class BearerTokenAuthentication(BaseAuthentication):
        """accounts.authentication in DRF's shape (the product has no DRF view: it lives here)."""

        def authenticate(self, request):  # type: ignore[no-untyped-def]
            token = bearer_token(request)
            return None if token is None else (resolve(token), None)

        def authenticate_header(self, request):  # type: ignore[no-untyped-def]
            return WWW_AUTHENTICATE

    class AcceptLater(BaseContentNegotiation):
        """Accept is judged after authentication (406), as the plain view does."""

        def select_parser(self, request, parsers):  # type: ignore[no-untyped-def]
            return None

        def select_renderer(self, request, renderers, format_suffix=None):  # type: ignore[no-untyped-def]
            return renderers[0], renderers[0].media_type

    class CallerThrottle(throttling.CallerRateThrottle):
        def __init__(self) -> None:  # DRF makes throttles without arguments
            SimpleRateThrottle.__init__(self)

        def allow_request(self, request, view):  # type: ignore[no-untyped-def]
            self.caller = request.user
            return super().allow_request(request, view)

    class McpView(APIView):
        authentication_classes = [BearerTokenAuthentication]
        permission_classes = [IsAuthenticated]
        throttle_classes = [CallerThrottle]
        content_negotiation_class = AcceptLater
        renderer_classes = [JSONRenderer]
        parser_classes: list = []

        @property
        def default_response_headers(self) -> dict:  # no Allow / Vary on every answer
            return {}

        def dispatch(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            self.request_id = access_log.request_id(request)
            self.outcome = None
            response = super().dispatch(request, *args, **kwargs)
            response["X-Request-ID"] = self.request_id
            caller = getattr(self.request, "_user", None)
            caller = caller if isinstance(caller, Caller) else None
            duration = round((time.perf_counter() - started) * 1000, 2)
            if self.outcome is not None:
                access_log.write(self.request_id, caller, self.outcome, duration)
            return response

        def initial(self, request: Request, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            # Method, Origin and declared size come before authentication, as in the plain view.
            admission.screen(request._request)
            super().initial(request, *args, **kwargs)

        def post(self, request: Request) -> HttpResponse:
            message = parse_message(admission.body(request._request))
            self.outcome = protocol.answer(message, request.user, admission.Headers(request._request))
            return self.outcome.response()

        def http_method_not_allowed(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise refusals.method_not_allowed()

        def handle_exception(self, exc: Exception) -> HttpResponse:
            if isinstance(exc, exceptions.Throttled):
                wait = max(1, math.ceil(exc.wait or 60))
                exc = refusals.rate_limited(settings.MCP_RATE_LIMIT_PER_MINUTE, wait)
            elif isinstance(exc, AuthError):
                exc = refusals.not_let_in(exc)
            elif isinstance(exc, exceptions.NotAuthenticated):
                exc = refusals.not_let_in(NoCredentials())
            elif isinstance(exc, MalformedMessage):
                exc = protocol.malformed(exc, admission.Headers(self.request._request))
            if isinstance(exc, Refusal):
                self.outcome = exc.outcome()
                return self.outcome.response()
            return super().handle_exception(exc)

    module = ModuleType("drf_urlconf")
    module.urlpatterns = [path("mcp", McpView.as_view())]  # type: ignore[attr-defined]
    return module


def measure(client, body: bytes, requests: int) -> float:  # type: ignore[no-untyped-def]
    """CPU microseconds per request."""
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"}
    started = time.process_time()
    for _ in range(requests):
        response = client.post("/mcp", data=body, content_type="application/json", headers=headers)
    elapsed = time.process_time() - started
    assert response.status_code == 200, response.content
    return elapsed / requests * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--callgrind",
        metavar="VARIANT:REQUEST",
        help="under valgrind --tool=callgrind --instr-atstart=no: count instructions of --requests "
        "requests of one kind (e.g. drf:ping) and nothing else",
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as work:
        _setup(Path(work) / "db.sqlite3")
        import json

        from django.test import Client
        from django.test.utils import override_settings

        from catalog.index import active_view

        view = active_view(False)
        assert view is not None
        bodies = {
            "ping": {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            "skills_get": {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "skills_get", "arguments": {"id": view.skills[0].id}},
            },
        }
        variants = {"plain": override_settings(), "drf": override_settings(ROOT_URLCONF=drf_urlconf())}
        client = Client()
        # The same answers from both, byte for byte, each from its own view.
        for name, body in bodies.items():
            answers = set()
            for variant, settings in variants.items():
                with settings:
                    response = client.post(
                        "/mcp",
                        data=json.dumps(body),
                        content_type="application/json",
                        headers={"Authorization": f"Bearer {TOKEN}"},
                    )
                    # (resolver_match is worked out when read: inside the variant's settings)
                    assert hasattr(response.resolver_match.func, "view_class") == (variant == "drf")
                answers.add(response.content)
            assert len(answers) == 1, name

        if args.callgrind:
            variant, name = args.callgrind.split(":")
            with variants[variant]:
                encoded = json.dumps(bodies[name]).encode()
                measure(client, encoded, 100)
                callgrind("on")
                measure(client, encoded, args.requests)
                callgrind("off")
            return 0

        print(
            f"{args.requests} requests a run, {args.runs} runs a variant, CPU µs per request (process_time)"
        )
        for name, body in bodies.items():
            encoded = json.dumps(body).encode()
            figures: dict[str, list[float]] = {variant: [] for variant in variants}
            for settings in variants.values():  # warm both up
                with settings:
                    measure(client, encoded, 200)
            for _ in range(args.runs):
                for variant, settings in variants.items():
                    with settings:
                        figures[variant].append(measure(client, encoded, args.requests))
            report(name, figures)
    return 0


def report(name: str, figures: dict[str, list[float]]) -> None:
    plain, drf = statistics.median(figures["plain"]), statistics.median(figures["drf"])
    # Runs of a pair ran back to back, so their difference is less exposed to the machine's
    # other load than either figure.
    paired = [d - p for p, d in zip(figures["plain"], figures["drf"], strict=True)]
    slower = sum(difference > 0 for difference in paired)
    difference = statistics.median(paired)
    spread = max(figures["plain"]) - min(figures["plain"])
    print(
        f"{name:>10}: plain {plain:6.1f}  drf {drf:6.1f}  paired difference median "
        f"{difference:+6.1f} ({difference / plain:+.1%}), drf slower in {slower} of "
        f"{len(paired)} pairs; plain runs spread {spread:.1f}"
    )
    print(f"{'':>12}plain {', '.join(f'{x:.0f}' for x in figures['plain'])}")
    print(f"{'':>12}drf   {', '.join(f'{x:.0f}' for x in figures['drf'])}")


def callgrind(state: str) -> None:
    """Turn callgrind's instrumentation of this process on or off (a no-op without valgrind)."""
    subprocess.run(
        ["callgrind_control", "--instr=" + state, str(os.getpid())], check=False, capture_output=True
    )


if __name__ == "__main__":
    raise SystemExit(main())

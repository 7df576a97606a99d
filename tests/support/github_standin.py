"""A stand-in for GitHub's `GET /user`: a real HTTP server on 127.0.0.1, on a thread.

Point GITHUB_API_URL at `standin.url` (the settings for in-process tests, the
environment for a gunicorn started by an end-to-end test). `/user` answers by
the bearer token it is sent:

    a token added with add_user()  200 {"login": ..., "id": ...}
    "boom"                         500
    "ratelimit"                    403 with x-ratelimit-remaining: 0 (GitHub's primary rate limit)
    "toomany"                      429 with retry-after (a secondary rate limit)
    "hang"                         accepts, then never answers (until hang_seconds or stop())
    "drip"                         starts a 200 answer, then trickles one header byte every 0.1 s
    "garbage"                      200 with a body that is not JSON
    "huge"                         200 with a 2 MiB body
    "redirect"                     302 to another path
    anything else ("bad" included) 401 {"message": "Bad credentials"}, as GitHub does

The OAuth App web flow (docs/reference.md#oauth) is stood in for too: register the app with
add_oauth_app(client_id, secret, callback), choose who is signed in on "GitHub"
with sign_in_as(login), and then

    GET  /login/oauth/authorize      302 to the callback with a code and the state (S256 PKCE
                                     is remembered), or 403 when nobody is signed in, or 404
                                     for an unknown client or callback
    POST /login/oauth/access_token   the code exchange: client secret, redirect URI, a
                                     single-use code and the S256 verifier are all checked;
                                     answers {"access_token": "gho_..."} (a token /user then
                                     knows), or, as GitHub does, 200 {"error": ...}

`authorize_requests` and `token_requests` keep the parameters each one was sent.

A special token may carry a suffix after an underscore ("ghp_boom_1f2e3d", made by
special(BOOM)): tests that must not share a cache entry, or must find a token in their
output, use one.

`calls[token]` counts the requests per token; `requests` keeps each request's
headers; `user_delay` (seconds) holds every /user answer back that long, so that tests
can have several checks in flight at once. Use it as a context manager
(tests/accounts/conftest.py's `github` fixture), or from a shell:

    python -m tests.support.github_standin --port 8765 --user TOKEN=LOGIN[:ID] ...
"""

import argparse
import base64
import hashlib
import hmac
import json
import secrets
import threading
from collections import Counter
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from tests.support.http_answers import LocalServer, send

BAD = "ghp_bad"
BOOM = "ghp_boom"
RATELIMIT = "ghp_ratelimit"
TOOMANY = "ghp_toomany"
HANG = "ghp_hang"
DRIP = "ghp_drip"
GARBAGE = "ghp_garbage"
HUGE = "ghp_huge"
REDIRECT = "ghp_redirect"


def special(kind: str) -> str:
    """A fresh token the stand-in answers as `kind` does: "<kind>_<random hex>"."""
    return f"{kind}_{secrets.token_hex(8)}"


def kind_of(token: str) -> str:
    """The special kind a token names ("ghp_boom_1f2e" -> "ghp_boom"), or the token itself."""
    head, _, rest = token.partition("_")
    return f"{head}_{rest.split('_', 1)[0]}" if rest else token


class GitHubStandIn:
    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, hang_seconds: float = 30.0) -> None:
        self.users: dict[str, dict[str, Any]] = {}
        self.calls: Counter[str] = Counter()
        self.requests: list[dict[str, str]] = []
        self.hang_seconds = hang_seconds
        self.user_delay = 0.0
        self.oauth_apps: dict[str, dict[str, str]] = {}
        self.signed_in: dict[str, Any] | None = None
        self.codes: dict[str, dict[str, Any]] = {}
        self.authorize_requests: list[dict[str, str]] = []
        self.token_requests: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = LocalServer(_handler_for(self), host, port)

    @property
    def url(self) -> str:
        return self._server.url

    def add_user(self, token: str, login: str, user_id: int | None = None) -> None:
        """Make `token` a valid GitHub token of `login`."""
        self.users[token] = {"login": login, "id": user_id if user_id is not None else _fake_id(login)}

    def remove_user(self, token: str) -> None:
        """Revoke the token on "GitHub": from now on it answers 401."""
        self.users.pop(token, None)

    def add_oauth_app(self, client_id: str, secret: str, callback_url: str) -> None:
        """Register an OAuth App (its one callback URL, compared exactly)."""
        self.oauth_apps[client_id] = {"secret": secret, "callback": callback_url}

    def sign_in_as(self, login: str | None, user_id: int | None = None) -> None:
        """Who the browser is signed in to "GitHub" as (None: nobody)."""
        if login is None:
            self.signed_in = None
        else:
            self.signed_in = {"login": login, "id": user_id if user_id is not None else _fake_id(login)}

    def _authorize(self, params: dict[str, str]) -> tuple[int, str]:
        """(status, Location or message) for GET /login/oauth/authorize."""
        with self._lock:
            self.authorize_requests.append(params)
        app = self.oauth_apps.get(params.get("client_id", ""))
        if app is None or params.get("redirect_uri", app["callback"]) != app["callback"]:
            return HTTPStatus.NOT_FOUND, "unknown client or redirect_uri"
        if self.signed_in is None:
            return HTTPStatus.FORBIDDEN, "nobody is signed in"
        code = secrets.token_hex(10)
        with self._lock:
            self.codes[code] = {
                "client_id": params["client_id"],
                "redirect_uri": params.get("redirect_uri", app["callback"]),
                "challenge": params.get("code_challenge"),
                "method": params.get("code_challenge_method"),
                "user": dict(self.signed_in),
            }
        query = urlencode({"code": code, "state": params.get("state", "")})
        return HTTPStatus.FOUND, f"{app['callback']}?{query}"

    def _exchange(self, params: dict[str, str]) -> dict[str, str]:
        """The JSON answer of POST /login/oauth/access_token."""
        with self._lock:
            self.token_requests.append(params)
            grant = self.codes.pop(params.get("code", ""), None)  # single use, even when refused
        app = self.oauth_apps.get(params.get("client_id", ""))
        if app is None or not hmac.compare_digest(params.get("client_secret", ""), app["secret"]):
            return {"error": "incorrect_client_credentials"}
        if grant is None or grant["client_id"] != params["client_id"]:
            return {"error": "bad_verification_code"}
        if params.get("redirect_uri", grant["redirect_uri"]) != grant["redirect_uri"]:
            return {"error": "redirect_uri_mismatch"}
        if grant["challenge"] is not None:
            verifier = params.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
            if grant["method"] != "S256" or not hmac.compare_digest(digest.decode(), grant["challenge"]):
                return {"error": "bad_verification_code"}
        token = "gho_" + secrets.token_hex(18)
        self.users[token] = grant["user"]
        return {"access_token": token, "token_type": "bearer", "scope": ""}

    def start(self) -> "GitHubStandIn":
        self._server.start("github-standin")
        return self

    def stop(self) -> None:
        self._stopping.set()  # releases "hang" and "drip" handlers at once
        self._server.stop()

    def __enter__(self) -> "GitHubStandIn":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _record(self, token: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.calls[token] += 1
            self.requests.append(headers)


def _fake_id(login: str) -> int:
    return sum(ord(char) * 31**index for index, char in enumerate(login)) % 10**8 + 1


def _handler_for(standin: GitHubStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "GitHubStandIn/1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: test output stays readable

        def do_POST(self) -> None:
            if urlsplit(self.path).path != "/login/oauth/access_token":
                self._json(HTTPStatus.NOT_FOUND, {"message": "Not Found"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            params = dict(parse_qsl(self.rfile.read(length).decode()))
            self._json(HTTPStatus.OK, standin._exchange(params))

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/login/oauth/authorize":
                status, where = standin._authorize(dict(parse_qsl(parts.query)))
                if status == HTTPStatus.FOUND:
                    self.send_response(status)
                    self.send_header("Location", where)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    self._raw(status, where.encode(), "text/plain")
                return
            if self.path != "/user":
                self._json(HTTPStatus.NOT_FOUND, {"message": "Not Found"})
                return
            scheme, _, token = self.headers.get("Authorization", "").partition(" ")
            token = token.strip() if scheme.lower() in ("bearer", "token") else ""
            standin._record(token, dict(self.headers.items()))
            if standin.user_delay:
                standin._stopping.wait(standin.user_delay)
            kind = kind_of(token)

            if token in standin.users:
                self._json(HTTPStatus.OK, standin.users[token])
            elif kind == BOOM:
                self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"message": "Server Error"})
            elif kind == RATELIMIT:
                self._json(
                    HTTPStatus.FORBIDDEN,
                    {"message": "API rate limit exceeded"},
                    {
                        "x-ratelimit-limit": "5000",
                        "x-ratelimit-remaining": "0",
                        "x-ratelimit-reset": "1999999999",
                    },
                )
            elif kind == TOOMANY:
                self._json(
                    HTTPStatus.TOO_MANY_REQUESTS, {"message": "secondary rate limit"}, {"retry-after": "60"}
                )
            elif kind == HANG:
                standin._stopping.wait(standin.hang_seconds)
            elif kind == DRIP:
                self._drip()
            elif kind == GARBAGE:
                self._raw(HTTPStatus.OK, b"<html>not json</html>", "text/html")
            elif kind == HUGE:
                self._raw(
                    HTTPStatus.OK, b'{"login": "' + b"a" * (2 * 1024 * 1024) + b'"}', "application/json"
                )
            elif kind == REDIRECT:
                self.send_response(HTTPStatus.FOUND)
                self.send_header("Location", "/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self._json(HTTPStatus.UNAUTHORIZED, {"message": "Bad credentials"})

        def _drip(self) -> None:
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            self.wfile.flush()
            deadline = standin.hang_seconds
            while deadline > 0 and not standin._stopping.wait(0.1):
                try:
                    self.wfile.write(b"X")
                    self.wfile.flush()
                except OSError:
                    return  # the client gave up
                deadline -= 0.1

        def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            self._raw(status, json.dumps(body).encode(), "application/json; charset=utf-8", headers)

        def _raw(
            self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
        ) -> None:
            send(self, status, body, content_type, headers)

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve a GitHub /user stand-in on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--user", action="append", default=[], metavar="TOKEN=LOGIN[:ID]")
    args = parser.parse_args()
    standin = GitHubStandIn(port=args.port)
    for spec in args.user:
        token, _, who = spec.partition("=")
        login, _, user_id = who.partition(":")
        standin.add_user(token, login, int(user_id) if user_id else None)
    with standin:
        print(standin.url, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()

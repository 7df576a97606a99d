"""Whose GitHub token is this: GET {GITHUB_API_URL}/user, bounded in time and
size, with the answer cached under a hash of the token (never the token).

    github_user(token) -> GitHubUser
        raises InvalidToken (GitHub answered 401) or UpstreamUnavailable
        (anything else: another status, rate limits included, a body that is
        not a user, a timeout, a connection error).

    fetch_user(token) -> GitHubUser
        The same question, never cached: for the OAuth sign-in, whose GitHub token
        is used for this one call and then dropped.

Only the identity is cached; whether that login may come in is decided on
every request by accounts.callers, so removing a login takes effect at once.
"""

import hashlib
import http.client
import json
import logging
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from email.message import Message
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache

from accounts.errors import InvalidToken, UpstreamUnavailable

logger = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 1024 * 1024
USER_AGENT = "skills-registry"
CACHE_KEY_PREFIX = "gh:"
_INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class GitHubUser:
    login: str
    id: int | None


def cache_key(token: str) -> str:
    return CACHE_KEY_PREFIX + hashlib.sha256(token.encode()).hexdigest()


def github_user(token: str) -> GitHubUser:
    key = cache_key(token)
    cached = cache.get(key)
    if cached == _INVALID:
        raise InvalidToken()
    if isinstance(cached, dict) and isinstance(cached.get("login"), str):
        return GitHubUser(login=cached["login"], id=cached.get("id"))

    try:
        user = _ask_github(token)
    except InvalidToken:
        # A bad token is remembered briefly, so a misconfigured client retrying
        # in a loop does not spend our GitHub rate limit.
        if settings.GITHUB_FAILURE_CACHE_SECONDS > 0:
            cache.set(key, _INVALID, settings.GITHUB_FAILURE_CACHE_SECONDS)
        raise
    # UpstreamUnavailable propagates uncached: the next request asks GitHub again.
    if settings.GITHUB_CACHE_SECONDS > 0:
        cache.set(key, {"login": user.login, "id": user.id}, settings.GITHUB_CACHE_SECONDS)
    return user


def fetch_user(token: str) -> GitHubUser:
    return _ask_github(token)


@dataclass(frozen=True, slots=True)
class _Answer:
    status: int
    headers: Message
    body: bytes


class _Exchange:
    """One GET /user, run on its own thread so that the caller can give up at the
    deadline whatever GitHub does: per-socket-operation timeouts alone would let
    a slow DNS answer or a server trickling bytes hold the request far longer.
    """

    def __init__(self, base_url: str, token: str, timeout: float) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            logger.error("GITHUB_API_URL is not an http(s) URL; refusing GitHub tokens with 503")
            raise UpstreamUnavailable("GITHUB_API_URL is not an http(s) URL; the token cannot be checked.")
        self._parts = parts
        self._token = token
        self._timeout = timeout
        self._connection: http.client.HTTPConnection | None = None
        self._abandoned = threading.Event()
        self.done = threading.Event()
        self.answer: _Answer | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.answer = self._get()
        # ValueError: http.client's own refusals (e.g. a malformed URL port);
        # their text may echo a header value, so only the class name is logged.
        except (OSError, http.client.HTTPException, ValueError) as exc:
            self.error = exc
        finally:
            if self._connection is not None:
                self._connection.close()
            self.done.set()

    def _get(self) -> _Answer:
        parts = self._parts
        if parts.scheme == "https":
            connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                parts.hostname, parts.port, timeout=self._timeout, context=ssl.create_default_context()
            )
        else:
            connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=self._timeout)
        self._connection = connection
        connection.connect()
        if self._abandoned.is_set():
            raise TimeoutError("abandoned at the deadline")
        connection.request(
            "GET",
            parts.path.rstrip("/") + "/user",
            headers={
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {self._token}",
                "User-Agent": USER_AGENT,
                "X-GitHub-Api-Version": "2022-11-28",
            },
        )
        response = connection.getresponse()
        body = response.read(MAX_RESPONSE_BYTES + 1)
        return _Answer(status=response.status, headers=response.headers, body=body)

    def abandon(self) -> None:
        """Unblock the worker thread: shutting the socket down wakes a blocked recv()."""
        self._abandoned.set()
        connection = self._connection
        sock = connection.sock if connection is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by the worker


def _ask_github(token: str) -> GitHubUser:
    timeout = float(settings.GITHUB_TIMEOUT_SECONDS)
    exchange = _Exchange(settings.GITHUB_API_URL, token, timeout)
    started = time.monotonic()
    # A daemon thread: a GitHub that never answers must not keep the process from exiting.
    threading.Thread(target=exchange.run, name="github-user", daemon=True).start()
    finished = exchange.done.wait(timeout)
    # The worker's own socket timeout can fire a hair before the deadline: the same case.
    if not finished or isinstance(exchange.error, TimeoutError):
        exchange.abandon()
        logger.warning("GitHub /user did not answer within %.1f s; refusing with 503", timeout)
        raise UpstreamUnavailable(f"GitHub did not answer within {timeout:g} seconds; try again shortly.")
    elapsed = time.monotonic() - started

    if exchange.error is not None or exchange.answer is None:
        logger.warning(
            "GitHub /user could not be reached (%s after %.2f s); refusing with 503",
            type(exchange.error).__name__,
            elapsed,
        )
        raise UpstreamUnavailable("GitHub could not be reached to check the token; try again shortly.")
    return _interpret(exchange.answer)


def _interpret(answer: _Answer) -> GitHubUser:
    status = answer.status
    if status == 401:
        logger.info("GitHub /user answered 401: the token is not valid")
        raise InvalidToken()
    if status != 200:
        if _rate_limited(answer):
            logger.warning(
                "GitHub /user answered %d, rate limited (reset %s, retry-after %s); refusing with 503",
                status,
                answer.headers.get("x-ratelimit-reset", "-"),
                answer.headers.get("retry-after", "-"),
            )
            raise UpstreamUnavailable(
                "GitHub's rate limit was reached while checking the token; try again later."
            )
        logger.warning("GitHub /user answered %d; refusing with 503", status)
        raise UpstreamUnavailable(
            f"GitHub answered HTTP {status} while checking the token; try again shortly."
        )

    user = _parse_user(answer.body)
    if user is None:
        logger.warning(
            "GitHub /user answered 200 with a body that is not a user (%d bytes)", len(answer.body)
        )
        raise UpstreamUnavailable("GitHub answered with an unexpected body; try again shortly.")
    return user


def _rate_limited(answer: _Answer) -> bool:
    return (
        answer.status == 429
        or answer.headers.get("x-ratelimit-remaining", "").strip() == "0"
        or answer.headers.get("retry-after") is not None
    )


def _parse_user(body: bytes) -> GitHubUser | None:
    if len(body) > MAX_RESPONSE_BYTES:
        return None
    try:
        data = json.loads(body.decode("utf-8"))
    # RecursionError: a deeply nested document is not a user either.
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    login, user_id = data.get("login"), data.get("id")
    if not isinstance(login, str) or not login or len(login) > 100 or not login.isprintable() or " " in login:
        return None
    if isinstance(user_id, bool) or not isinstance(user_id, int):
        user_id = None
    return GitHubUser(login=login, id=user_id)

"""The one GitHub HTTP client, and whose GitHub token this is (docs/reference.md#callers-and-clearance).

    call(method, url, headers=..., body=..., purpose=...) -> Answer
        One exchange with GitHub: the whole call (DNS, connect, send, every byte of the
        answer) is capped by GITHUB_TIMEOUT_SECONDS, the body by MAX_RESPONSE_BYTES, and
        every request carries USER_AGENT. Raises UpstreamUnavailable on a timeout, a
        connection error or a URL that is not http(s). The PAT check below and the OAuth
        sign-in (oauth.github: the code exchange, then fetch_user) both go through it.

    github_user(token) -> GitHubUser
        GET {GITHUB_API_URL}/user, the answer cached under a hash of the token (never the
        token). Raises InvalidToken (GitHub answered 401) or UpstreamUnavailable (anything
        else: another status, rate limits included, a body that is not a user, a timeout).

    fetch_user(token) -> GitHubUser
        The same question, never cached: for the OAuth sign-in, whose GitHub token is used
        for this one call and then dropped.

Only the identity is cached; whether that login may come in is decided on every request
by accounts.callers, so removing a login takes effect at once.
"""

import hashlib
import http.client
import json
import logging
import socket
import ssl
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message
from urllib.parse import SplitResult, urlsplit

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


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: Message
    # At most MAX_RESPONSE_BYTES + 1 bytes: a longer answer is cut there, and is too_large.
    body: bytes

    @property
    def too_large(self) -> bool:
        return len(self.body) > MAX_RESPONSE_BYTES

    def json(self) -> object:
        """The body as JSON, or None when it is too large or not JSON at all."""
        if self.too_large:
            return None
        try:
            return json.loads(self.body.decode("utf-8"))
        # RecursionError: a deeply nested document is not an answer either.
        except (ValueError, RecursionError):
            return None


# --- the client -------------------------------------------------------------------------------


def call(
    method: str, url: str, *, headers: Mapping[str, str], body: bytes | None = None, purpose: str
) -> Answer:
    """`purpose` completes "GitHub could not be reached ..." (e.g. "to check the token")."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        logger.error("A GitHub URL setting is not http(s) (scheme %r); refusing with 503", parts.scheme)
        raise UpstreamUnavailable(f"GitHub cannot be reached {purpose}: its URL setting is not http(s).")
    timeout = float(settings.GITHUB_TIMEOUT_SECONDS)
    exchange = _Exchange(parts, method, {**headers, "User-Agent": USER_AGENT}, body, timeout)
    started = time.monotonic()
    # A daemon thread: a GitHub that never answers must not keep the process from exiting.
    threading.Thread(target=exchange.run, name="github-call", daemon=True).start()
    finished = exchange.done.wait(timeout)
    # The worker's own socket timeout can fire a hair before the deadline: the same case.
    if not finished or isinstance(exchange.error, TimeoutError):
        exchange.abandon()
        logger.warning("GitHub %s did not answer within %.1f s; refusing with 503", parts.path, timeout)
        raise UpstreamUnavailable(f"GitHub did not answer within {timeout:g} seconds; try again shortly.")
    if exchange.error is not None or exchange.answer is None:
        logger.warning(
            "GitHub %s could not be reached (%s after %.2f s); refusing with 503",
            parts.path,
            type(exchange.error).__name__,
            time.monotonic() - started,
        )
        raise UpstreamUnavailable(f"GitHub could not be reached {purpose}; try again shortly.")
    return exchange.answer


class _Exchange:
    """One request, run on its own thread so that the caller can give up at the deadline
    whatever GitHub does: per-socket-operation timeouts alone would let a slow DNS answer
    or a server trickling bytes hold the request far longer.
    """

    def __init__(
        self, parts: SplitResult, method: str, headers: dict[str, str], body: bytes | None, timeout: float
    ) -> None:
        self._parts = parts
        self._method = method
        self._headers = headers
        self._body = body
        self._timeout = timeout
        self._connection: http.client.HTTPConnection | None = None
        self._abandoned = threading.Event()
        self.done = threading.Event()
        self.answer: Answer | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.answer = self._exchange()
        # ValueError: http.client's own refusals (e.g. a malformed URL port);
        # their text may echo a header value, so only the class name is logged.
        except (OSError, http.client.HTTPException, ValueError) as exc:
            self.error = exc
        finally:
            if self._connection is not None:
                self._connection.close()
            self.done.set()

    def _exchange(self) -> Answer:
        parts = self._parts
        host = parts.hostname or ""
        connection: http.client.HTTPConnection
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(
                host, parts.port, timeout=self._timeout, context=ssl.create_default_context()
            )
        else:
            connection = http.client.HTTPConnection(host, parts.port, timeout=self._timeout)
        self._connection = connection
        connection.connect()
        if self._abandoned.is_set():
            raise TimeoutError("abandoned at the deadline")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request(self._method, path, body=self._body, headers=self._headers)
        response = connection.getresponse()
        body = response.read(MAX_RESPONSE_BYTES + 1)
        return Answer(status=response.status, headers=response.headers, body=body)

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


# --- whose token is this ----------------------------------------------------------------------


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
        user = fetch_user(token)
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
    answer = call(
        "GET",
        settings.GITHUB_API_URL.rstrip("/") + "/user",
        headers={
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {token}",
            "X-GitHub-Api-Version": "2022-11-28",
        },
        purpose="to check the token",
    )
    return user_from(answer)


def user_from(answer: Answer) -> GitHubUser:
    """What GitHub's answer to /user says, or the refusal it amounts to."""
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

    user = _parse_user(answer.json())
    if user is None:
        logger.warning(
            "GitHub /user answered 200 with a body that is not a user (%d bytes)", len(answer.body)
        )
        raise UpstreamUnavailable("GitHub answered with an unexpected body; try again shortly.")
    return user


def _rate_limited(answer: Answer) -> bool:
    return (
        answer.status == 429
        or answer.headers.get("x-ratelimit-remaining", "").strip() == "0"
        or answer.headers.get("retry-after") is not None
    )


def _parse_user(data: object) -> GitHubUser | None:
    if not isinstance(data, dict):
        return None
    login, user_id = data.get("login"), data.get("id")
    if not isinstance(login, str) or not login or len(login) > 100 or not login.isprintable() or " " in login:
        return None
    if isinstance(user_id, bool) or not isinstance(user_id, int):
        user_id = None
    return GitHubUser(login=login, id=user_id)

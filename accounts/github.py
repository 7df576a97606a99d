"""The one GitHub HTTP client, and whose GitHub token this is (docs/reference.md#callers-and-clearance).

    call(method, url, headers=..., body=..., purpose=...) -> Answer
        One exchange with GitHub: the whole call (DNS, connect, send, every byte of the
        answer) is capped by GITHUB_TIMEOUT_SECONDS, the body by MAX_RESPONSE_BYTES, and
        every request carries USER_AGENT. At most GITHUB_MAX_CONCURRENT_CALLS run at once
        in a process (one more is refused at once, no call made); HTTPS_PROXY / HTTP_PROXY
        and NO_PROXY are honoured. Raises UpstreamUnavailable on a timeout, a connection
        error, a full set of slots or a URL that is not http(s). The PAT check below and the
        OAuth sign-in (oauth.github: the code exchange, then fetch_user) both go through it.

    has_github_shape(token) -> bool
        Whether the token looks like one GitHub issues: only such a token is ever sent.

    github_user(token) -> GitHubUser
        GET {GITHUB_API_URL}/user, the answer cached under a hash of the token (never the
        token); concurrent checks of one token in a process share one call. Raises
        InvalidToken (GitHub answered 401) or UpstreamUnavailable (anything else: another
        status, rate limits included, a body that is not a user, a timeout).

    fetch_user(token) -> GitHubUser
        The same question, never cached: for the OAuth sign-in, whose GitHub token is used
        for this one call and then dropped.

Only the identity is cached; whether that login may come in is decided on every request
by accounts.callers, so removing a login takes effect at once.
"""

import base64
import hashlib
import http.client
import json
import logging
import re
import socket
import ssl
import threading
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message
from urllib.parse import SplitResult, unquote, urlsplit

from django.conf import settings
from django.core.cache import cache

from accounts.errors import AuthError, InvalidToken, UpstreamUnavailable
from skillsite.shared_cache import CACHE_ERRORS, log_cache_down

logger = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 1024 * 1024
USER_AGENT = "skills-registry"
CACHE_KEY_PREFIX = "gh:"
_INVALID = "invalid"

# GitHub's token formats (docs/reference.md#callers-and-clearance): a prefix naming the kind
# (personal, OAuth, user-to-server, server-to-server, refresh; fine-grained github_pat_)
# and then its characters, or a classic 40-hex token. Lengths are left open: GitHub says
# they may grow.
_GITHUB_TOKEN_RE = re.compile(r"(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]+|[0-9a-fA-F]{40}")


def has_github_shape(token: str) -> bool:
    return _GITHUB_TOKEN_RE.fullmatch(token) is not None


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
    proxy = _proxy_for(parts)
    if not _slots.take():
        logger.warning(
            "GitHub %s not called: %d GitHub calls are already in flight (GITHUB_MAX_CONCURRENT_CALLS); "
            "refusing with 503",
            parts.path,
            settings.GITHUB_MAX_CONCURRENT_CALLS,
        )
        raise UpstreamUnavailable("Too many GitHub checks are in progress; try again shortly.")
    exchange = _Exchange(parts, method, {**headers, "User-Agent": USER_AGENT}, body, timeout, proxy)
    started = time.monotonic()
    # A daemon thread: a GitHub that never answers must not keep the process from exiting.
    # The thread gives its slot back when it ends, so the bound counts open connections,
    # not only the callers still waiting for them.
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


class _Slots:
    """How many GitHub calls are in flight in this process, against GITHUB_MAX_CONCURRENT_CALLS
    (read on every call). Taking a slot never waits: a flood must not queue up workers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.in_flight = 0

    def take(self) -> bool:
        with self._lock:
            if self.in_flight >= settings.GITHUB_MAX_CONCURRENT_CALLS:
                return False
            self.in_flight += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.in_flight -= 1


_slots = _Slots()


@dataclass(frozen=True, slots=True)
class _Proxy:
    host: str
    port: int
    authorization: str | None  # a Proxy-Authorization value, from user:password in the proxy URL


def _proxy_for(parts: SplitResult) -> _Proxy | None:
    """The proxy the environment names for this URL (HTTPS_PROXY for https, HTTP_PROXY for
    http, either in lower case too), or None when there is none or NO_PROXY covers the host.

    Read on every call, as curl and urllib do. Only http:// proxies are spoken to; an https
    URL goes through one with CONNECT, so the token travels inside the TLS tunnel.
    """
    proxies = urllib.request.getproxies_environment()
    url = proxies.get(parts.scheme)
    netloc = parts.netloc.rpartition("@")[2]
    if not url or urllib.request.proxy_bypass(netloc):
        return None
    proxy = urlsplit(url if "://" in url else f"http://{url}")
    try:
        port = proxy.port or 80
    except ValueError:
        port = -1
    if proxy.scheme != "http" or not proxy.hostname or port < 0:
        logger.error("The %s proxy setting is not an http:// URL; refusing with 503", parts.scheme.upper())
        raise UpstreamUnavailable("GitHub cannot be reached: the proxy setting is not an http:// URL.")
    authorization = None
    if proxy.username is not None:
        pair = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}"
        authorization = "Basic " + base64.b64encode(pair.encode()).decode()
    return _Proxy(proxy.hostname, port, authorization)


class _Exchange:
    """One request, run on its own thread so that the caller can give up at the deadline
    whatever GitHub does: per-socket-operation timeouts alone would let a slow DNS answer
    or a server trickling bytes hold the request far longer.
    """

    def __init__(
        self,
        parts: SplitResult,
        method: str,
        headers: dict[str, str],
        body: bytes | None,
        timeout: float,
        proxy: _Proxy | None,
    ) -> None:
        self._parts = parts
        self._proxy = proxy
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
            _slots.give_back()
            self.done.set()

    def _exchange(self) -> Answer:
        parts, proxy = self._parts, self._proxy
        host = parts.hostname or ""
        headers = dict(self._headers)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection: http.client.HTTPConnection
        if parts.scheme == "https":
            context = ssl.create_default_context()
            if proxy is None:
                connection = http.client.HTTPSConnection(
                    host, parts.port, timeout=self._timeout, context=context
                )
            else:
                connection = http.client.HTTPSConnection(
                    proxy.host, proxy.port, timeout=self._timeout, context=context
                )
                tunnel_headers = {"Proxy-Authorization": proxy.authorization} if proxy.authorization else None
                connection.set_tunnel(host, parts.port or 443, headers=tunnel_headers)
        elif proxy is None:
            connection = http.client.HTTPConnection(host, parts.port, timeout=self._timeout)
        else:
            # A forward proxy: the request names the whole URL.
            connection = http.client.HTTPConnection(proxy.host, proxy.port, timeout=self._timeout)
            path = f"http://{parts.netloc.rpartition('@')[2]}{path}"
            if proxy.authorization:
                headers["Proxy-Authorization"] = proxy.authorization
        self._connection = connection
        connection.connect()
        if self._abandoned.is_set():
            raise TimeoutError("abandoned at the deadline")
        connection.request(self._method, path, body=self._body, headers=headers)
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
    cached = _cached(key)
    if cached is not None:
        return cached
    return _shared_check(key, token)


def _cached(key: str) -> GitHubUser | None:
    """The cached answer for this token hash (None: ask GitHub); InvalidToken for a remembered 401."""
    try:
        cached = cache.get(key)
    except CACHE_ERRORS as error:
        log_cache_down(logger, "reading a GitHub answer", error)
        return None
    if cached == _INVALID:
        raise InvalidToken()
    if isinstance(cached, dict) and isinstance(cached.get("login"), str):
        return GitHubUser(login=cached["login"], id=cached.get("id"))
    return None


def _remember(key: str, value: object, seconds: int) -> None:
    if seconds <= 0:
        return
    try:
        cache.set(key, value, seconds)
    except CACHE_ERRORS as error:
        log_cache_down(logger, "storing a GitHub answer", error)


class _Flight:
    """One check of one token hash in progress; whoever asks meanwhile waits for its result."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.user: GitHubUser | None = None
        self.error: AuthError | None = None


_flights: dict[str, _Flight] = {}
_flights_lock = threading.Lock()


def _shared_check(key: str, token: str) -> GitHubUser:
    """Ask GitHub once however many requests of this process bring the same token at once:
    a flood of one junk token costs one call, then the remembered 401 answers the rest."""
    with _flights_lock:
        flight = _flights.get(key)
        leading = flight is None
        if flight is None:
            flight = _flights[key] = _Flight()
    if not leading:
        if not flight.done.wait(float(settings.GITHUB_TIMEOUT_SECONDS) + 1):
            raise UpstreamUnavailable("GitHub did not answer in time; try again shortly.")
        if flight.error is not None:
            # A fresh exception of the same kind and message: one instance raised on two
            # threads would collect both tracebacks.
            raise type(flight.error)(flight.error.message)
        if flight.user is None:  # the check ended in something unexpected: fail closed
            raise UpstreamUnavailable("GitHub could not be reached to check the token; try again shortly.")
        return flight.user
    try:
        flight.user = _check(key, token)
        return flight.user
    except AuthError as error:
        flight.error = error
        raise
    finally:
        with _flights_lock:
            del _flights[key]
        flight.done.set()


def _check(key: str, token: str) -> GitHubUser:
    try:
        user = fetch_user(token)
    except InvalidToken:
        # A bad token is remembered briefly, so a misconfigured client retrying
        # in a loop does not spend our GitHub rate limit.
        _remember(key, _INVALID, settings.GITHUB_FAILURE_CACHE_SECONDS)
        raise
    # UpstreamUnavailable propagates uncached: the next request asks GitHub again.
    _remember(key, {"login": user.login, "id": user.id}, settings.GITHUB_CACHE_SECONDS)
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

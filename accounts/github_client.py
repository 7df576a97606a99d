"""The one GitHub HTTP client (docs/reference.md#callers-and-clearance).

call(method, url, headers=..., body=..., purpose=...) -> Answer
    One exchange with GitHub: the whole call (DNS, connect, send, every byte of the
    answer) is capped by GITHUB_TIMEOUT_SECONDS, the body by MAX_RESPONSE_BYTES, and
    every request carries USER_AGENT. At most GITHUB_MAX_CONCURRENT_CALLS run at once
    in a process (one more is refused at once, no call made); HTTPS_PROXY / HTTP_PROXY
    and NO_PROXY are honoured. Raises UpstreamUnavailable on a timeout, a connection
    error, a full set of slots or a URL that is not http(s). The PAT check
    (accounts.github) and the OAuth sign-in (oauth.github: the code exchange, then
    accounts.github.fetch_user) both go through it.
"""

import base64
import http.client
import json
import logging
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

from accounts.errors import UpstreamUnavailable

logger = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 1024 * 1024
USER_AGENT = "skills-registry"


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
    exchange = _Exchange(_Request(parts, method, {**headers, "User-Agent": USER_AGENT}, body, timeout, proxy))
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


@dataclass(frozen=True, slots=True)
class _Request:
    """What one exchange asks, and through which proxy."""

    parts: SplitResult
    method: str
    headers: dict[str, str]
    body: bytes | None
    timeout: float
    proxy: _Proxy | None


class _Exchange:
    """One request, run on its own thread so that the caller can give up at the deadline
    whatever GitHub does: per-socket-operation timeouts alone would let a slow DNS answer
    or a server trickling bytes hold the request far longer.
    """

    def __init__(self, request: _Request) -> None:
        self._request = request
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
        request = self._request
        parts, proxy, timeout = request.parts, request.proxy, request.timeout
        host = parts.hostname or ""
        headers = dict(request.headers)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection: http.client.HTTPConnection
        if parts.scheme == "https":
            context = ssl.create_default_context()
            if proxy is None:
                connection = http.client.HTTPSConnection(host, parts.port, timeout=timeout, context=context)
            else:
                connection = http.client.HTTPSConnection(
                    proxy.host, proxy.port, timeout=timeout, context=context
                )
                tunnel_headers = {"Proxy-Authorization": proxy.authorization} if proxy.authorization else None
                connection.set_tunnel(host, parts.port or 443, headers=tunnel_headers)
        elif proxy is None:
            connection = http.client.HTTPConnection(host, parts.port, timeout=timeout)
        else:
            # A forward proxy: the request names the whole URL.
            connection = http.client.HTTPConnection(proxy.host, proxy.port, timeout=timeout)
            path = f"http://{parts.netloc.rpartition('@')[2]}{path}"
            if proxy.authorization:
                headers["Proxy-Authorization"] = proxy.authorization
        self._connection = connection
        connection.connect()
        if self._abandoned.is_set():
            raise TimeoutError("abandoned at the deadline")
        connection.request(request.method, path, body=request.body, headers=headers)
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

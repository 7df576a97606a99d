"""Whose GitHub token this is (docs/reference.md#callers-and-clearance); every call to GitHub
goes through the one client, accounts.github_client.

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

import hashlib
import logging
import re
import threading
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from accounts.errors import AuthError, InvalidToken, UpstreamUnavailable
from accounts.github_client import Answer, call
from skillsite.shared_cache import cache_errors, log_cache_down

logger = logging.getLogger(__name__)

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
    except cache_errors() as error:
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
    except cache_errors() as error:
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

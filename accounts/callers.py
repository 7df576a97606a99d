"""Who is calling, and what they may see. Knows nothing of MCP.

    resolve(token) -> Caller
        The chain of docs/reference.md#callers-and-clearance, in order: the static environment tokens
        (SKILLS_ZDR_TOKENS cleared, SKILLS_READ_TOKENS not), the database
        service tokens, then a GitHub token checked against the allowlists.
        A token reaches GitHub only when it has a GitHub token's shape and some login
        is allowed at all. Raises InvalidToken, LoginNotAllowed or UpstreamUnavailable.
    caller_for_identity(identity) -> Caller
        The allowlist and ZDR rule for a login signed in through OAuth, read afresh on
        every call.

The login rule is the same for a PAT and an OAuth sign-in: listed somewhere, and, when its
database row is pinned to a GitHub id (recorded at an OAuth sign-in), that very account.

With OAuth on (docs/reference.md#oauth), tokens this server issued ("sko_...") are looked up
after the static tokens and before GitHub, and are never sent to GitHub.

Everything fails closed: no rule grants anything by default, and an error
anywhere is a refusal.
"""

import functools
import hashlib
import hmac
import logging
import re
from dataclasses import dataclass
from enum import StrEnum

from django.conf import settings
from django.db import DatabaseError

from accounts import github, oauth_tokens, tokens
from accounts.errors import InvalidToken, LoginNotAllowed, StoreUnavailable
from accounts.models import AllowedLogin, GitHubIdentity

logger = logging.getLogger(__name__)

# RFC 6750 b64token, bounded. Checked before a token reaches the database or
# GitHub (where it becomes a header value: no CR/LF can slip through).
_TOKEN_RE = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
MAX_TOKEN_LENGTH = 1024


class CallerKind(StrEnum):
    TOKEN = "token"  # noqa: S105 - a static environment token ("env", "env-zdr") or a database one
    GITHUB = "github"  # a GitHub personal access token
    OAUTH = "oauth"  # an OAuth access token this server issued after a GitHub sign-in


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is calling (never the token): a kind, a name within it, and the ZDR clearance."""

    kind: CallerKind
    # The token's name for TOKEN; the GitHub login, as GitHub spells it, for GITHUB and OAUTH.
    name: str
    zdr_cleared: bool

    @property
    def identity(self) -> str:
        """The caller as one string, `kind:name` ("token:ci", "github:alice"): the access log's field."""
        return f"{self.kind}:{self.name}"

    @property
    def login(self) -> str | None:
        """The GitHub login behind this caller, whichever token it came with; None for a service token."""
        return self.name if self.kind in (CallerKind.GITHUB, CallerKind.OAUTH) else None

    @property
    def is_authenticated(self) -> bool:
        # DRF's permission classes (IsAuthenticated) ask request.user this.
        return True


ENV_READ_CALLER = Caller(CallerKind.TOKEN, "env", zdr_cleared=False)
ENV_ZDR_CALLER = Caller(CallerKind.TOKEN, "env-zdr", zdr_cleared=True)


def resolve(token: str) -> Caller:
    try:
        return _resolve(token)
    except DatabaseError as error:
        # Fails closed, and says so: 503, never a 500 page or a 401 that blames the token.
        logger.warning(
            "The database could not be read to check a token (%s); refusing with 503", type(error).__name__
        )
        raise StoreUnavailable() from None


def _resolve(token: str) -> Caller:
    caller = _env_caller(token)
    if caller is not None:
        return caller
    if len(token) > MAX_TOKEN_LENGTH or not _TOKEN_RE.fullmatch(token):
        raise InvalidToken()
    if tokens.is_service_token(token):
        # One of ours (or a typo of one): answered here, never sent to GitHub.
        row = tokens.find_active(token)
        if row is None:
            raise InvalidToken()
        return Caller(CallerKind.TOKEN, row.name, zdr_cleared=row.zdr)
    if oauth_tokens.is_oauth_token(token):
        return caller_for_identity(oauth_tokens.identity_for(token))
    # Sent to GitHub only when it could let someone in: a mistyped static token must not
    # leave for a third party, and junk must not spend GitHub's rate limit.
    if not github.has_github_shape(token) or not _any_login_allowed():
        raise InvalidToken()
    user = github.github_user(token)
    # The id pin holds for a PAT as for an OAuth sign-in; GitHub naming no id proves nothing.
    return _caller(user.login, github_id=user.id, kind=CallerKind.GITHUB)


def _any_login_allowed() -> bool:
    return bool(settings.ALLOWED_GITHUB_LOGINS or settings.ZDR_GITHUB_LOGINS or AllowedLogin.objects.exists())


def _env_caller(token: str) -> Caller | None:
    """Match against every environment token in constant time.

    Comparing fixed-length digests hides the candidates' lengths, and every
    candidate is compared whatever matched, so the time taken does not say
    which list (or which entry) matched.
    """
    presented = _digest(token)
    zdr_match = False
    read_match = False
    for candidate in _digests(tuple(settings.SKILLS_ZDR_TOKENS)):
        zdr_match |= hmac.compare_digest(candidate, presented)
    for candidate in _digests(tuple(settings.SKILLS_READ_TOKENS)):
        read_match |= hmac.compare_digest(candidate, presented)
    if zdr_match:
        return ENV_ZDR_CALLER
    if read_match:
        return ENV_READ_CALLER
    return None


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


@functools.lru_cache(maxsize=8)
def _digests(tokens: tuple[str, ...]) -> tuple[bytes, ...]:
    """The digests of a list of environment tokens, made once per list rather than per request
    (a few lists: the two settings, and whatever tests override them with)."""
    return tuple(_digest(candidate) for candidate in tokens)


def caller_for_identity(identity: GitHubIdentity) -> Caller:
    """The login rule for an OAuth sign-in: a database row that recorded another GitHub
    account under this login (renamed, and the name taken by someone else) lets nobody in."""
    return _caller(identity.login, github_id=identity.github_id, kind=CallerKind.OAUTH)


def _caller(login: str, *, github_id: int | None, kind: CallerKind) -> Caller:
    """A GitHub login's clearance: let in if listed in ALLOWED_GITHUB_LOGINS,
    ZDR_GITHUB_LOGINS or the database; cleared for ZDR if in ZDR_GITHUB_LOGINS
    or a database row with zdr set. Logins compare case-insensitively. A database row
    pinned to a GitHub id lets in that account only.
    """
    folded = login.lower()
    env_allowed = folded in {item.lower() for item in settings.ALLOWED_GITHUB_LOGINS}
    env_zdr = folded in {item.lower() for item in settings.ZDR_GITHUB_LOGINS}
    row = AllowedLogin.objects.filter(login=folded).values_list("zdr", "github_id").first()
    db_zdr = row[0] if row is not None else None
    if not (env_allowed or env_zdr or db_zdr is not None):
        logger.info("GitHub login %s is not on the allowlist; refusing with 403", login)
        raise LoginNotAllowed()
    pinned = row[1] if row is not None else None
    if pinned is not None and github_id != pinned:
        logger.warning("GitHub login %s is now another GitHub account than the one allowed; refusing", login)
        raise LoginNotAllowed()
    return Caller(kind, login, zdr_cleared=env_zdr or db_zdr is True)

"""Who is calling, and what they may see. Knows nothing of MCP.

    resolve(token) -> Caller
        The chain of SPEC §7, in order: the static environment tokens
        (SKILLS_ZDR_TOKENS cleared, SKILLS_READ_TOKENS not), the database
        service tokens, then a GitHub token checked against the allowlists.
        Raises InvalidToken, LoginNotAllowed or UpstreamUnavailable.
    caller_for_login(login) -> Caller
        The allowlist and ZDR rule for a GitHub login, read afresh on every
        call (the GitHub answer may be cached; this never is).

Everything fails closed: no rule grants anything by default, and an error
anywhere is a refusal.
"""

import hashlib
import hmac
import logging
import re
from dataclasses import dataclass

from django.conf import settings

from accounts import github, tokens
from accounts.errors import InvalidToken, LoginNotAllowed
from accounts.models import AllowedLogin

logger = logging.getLogger(__name__)

# RFC 6750 b64token, bounded. Checked before a token reaches the database or
# GitHub (where it becomes a header value: no CR/LF can slip through).
_TOKEN_RE = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
MAX_TOKEN_LENGTH = 1024


@dataclass(frozen=True, slots=True)
class Caller:
    identity: str  # "token:<name>", "token:env", "token:env-zdr" or "github:<login>": never the token
    zdr_cleared: bool

    @property
    def is_authenticated(self) -> bool:
        # DRF's permission classes (IsAuthenticated) ask request.user this.
        return True


ENV_READ_CALLER = Caller(identity="token:env", zdr_cleared=False)
ENV_ZDR_CALLER = Caller(identity="token:env-zdr", zdr_cleared=True)


def resolve(token: str) -> Caller:
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
        return Caller(identity=f"token:{row.name}", zdr_cleared=row.zdr)
    user = github.github_user(token)
    return caller_for_login(user.login)


def _env_caller(token: str) -> Caller | None:
    """Match against every environment token in constant time.

    Comparing fixed-length digests hides the candidates' lengths, and every
    candidate is compared whatever matched, so the time taken does not say
    which list (or which entry) matched.
    """
    presented = hashlib.sha256(token.encode()).digest()
    zdr_match = False
    read_match = False
    for candidate in settings.SKILLS_ZDR_TOKENS:
        zdr_match |= hmac.compare_digest(hashlib.sha256(candidate.encode()).digest(), presented)
    for candidate in settings.SKILLS_READ_TOKENS:
        read_match |= hmac.compare_digest(hashlib.sha256(candidate.encode()).digest(), presented)
    if zdr_match:
        return ENV_ZDR_CALLER
    if read_match:
        return ENV_READ_CALLER
    return None


def caller_for_login(login: str) -> Caller:
    """A GitHub login's clearance: let in if listed in ALLOWED_GITHUB_LOGINS,
    ZDR_GITHUB_LOGINS or the database; cleared for ZDR if in ZDR_GITHUB_LOGINS
    or a database row with zdr set. Logins compare case-insensitively.
    """
    folded = login.lower()
    env_allowed = folded in {item.lower() for item in settings.ALLOWED_GITHUB_LOGINS}
    env_zdr = folded in {item.lower() for item in settings.ZDR_GITHUB_LOGINS}
    db_zdr = AllowedLogin.objects.filter(login=folded).values_list("zdr", flat=True).first()
    if not (env_allowed or env_zdr or db_zdr is not None):
        logger.info("GitHub login %s is not on the allowlist; refusing with 403", login)
        raise LoginNotAllowed()
    return Caller(identity=f"github:{login}", zdr_cleared=env_zdr or db_zdr is True)

"""Service tokens kept in the database: their format, hashing, lookup, and the
operator's operations on them (the management commands only call these).

A token is "skr_" + 43 URL-safe characters (32 random bytes). Only its SHA-256
is stored, with its first 12 characters as a lookup prefix.
"""

import hashlib
import hmac
import re
import secrets

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.errors import AccountsError
from accounts.models import ServiceToken

TOKEN_PREFIX = "skr_"  # noqa: S105 - the public marker of our tokens, not a secret
_TOKEN_RANDOM_BYTES = 32
_TOKEN_RE = re.compile(r"skr_[A-Za-z0-9_-]{43}")
LOOKUP_PREFIX_LENGTH = 12

NAME_MAX_LENGTH = 64
_NAME_RE = re.compile(r"[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*")
# Caller identities of the environment tokens: a database token named so would
# be indistinguishable from them in the logs.
RESERVED_NAMES = frozenset({"env", "env-zdr"})


def generate_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(_TOKEN_RANDOM_BYTES)


def token_digest(token: str) -> str:
    """SHA-256 of the token, hex.

    Not an HMAC keyed with SECRET_KEY: the token carries 256 random bits, so a
    leaked digest cannot be brute-forced anyway, and tying tokens to
    SECRET_KEY would make rotating that key (which also signs cursors)
    silently revoke every service token.
    """
    return hashlib.sha256(token.encode()).hexdigest()


def is_service_token(token: str) -> bool:
    """Whether the token claims to be one of ours. Such a token is never sent to GitHub."""
    return token.startswith(TOKEN_PREFIX)


def find_active(token: str) -> ServiceToken | None:
    """The active database token equal to `token`, or None. One read, no write, no cache."""
    if not _TOKEN_RE.fullmatch(token):
        return None
    digest = token_digest(token)
    found = None
    candidates = ServiceToken.objects.filter(prefix=token[:LOOKUP_PREFIX_LENGTH], revoked_at__isnull=True)
    for candidate in candidates.only("name", "digest", "zdr"):
        # Compare every candidate (there is almost always one) rather than stop at a match.
        if hmac.compare_digest(candidate.digest, digest):
            found = candidate
    return found


def validate_name(name: str) -> str:
    if len(name) > NAME_MAX_LENGTH or not _NAME_RE.fullmatch(name):
        raise AccountsError(
            f"Invalid token name {name!r}: use letters, digits and single '-', '_' or '.' between them, "
            f"at most {NAME_MAX_LENGTH} characters."
        )
    if name.lower() in RESERVED_NAMES:
        raise AccountsError(f"The token name {name!r} is reserved for the environment tokens.")
    return name


def issue(name: str, *, zdr: bool = False) -> tuple[ServiceToken, str]:
    """Create a token; returns the row and the token itself, which is never stored or shown again."""
    validate_name(name)
    token = generate_token()
    try:
        with transaction.atomic():
            if ServiceToken.objects.filter(name=name, revoked_at__isnull=True).exists():
                raise AccountsError(f"An active token named {name!r} already exists; revoke it first.")
            row = ServiceToken.objects.create(
                name=name, prefix=token[:LOOKUP_PREFIX_LENGTH], digest=token_digest(token), zdr=zdr
            )
    except IntegrityError:
        # Another create_token with the same name won the race.
        raise AccountsError(f"An active token named {name!r} already exists; revoke it first.") from None
    return row, token


def revoke(name: str) -> ServiceToken:
    """Revoke the active token of that name; refused from the very next request."""
    with transaction.atomic():
        row = ServiceToken.objects.select_for_update().filter(name=name, revoked_at__isnull=True).first()
        if row is None:
            if ServiceToken.objects.filter(name=name).exists():
                raise AccountsError(f"The token {name!r} is already revoked.")
            raise AccountsError(f"No token named {name!r}.")
        row.revoked_at = timezone.now()
        row.save(update_fields=["revoked_at"])
    return row


def all_tokens() -> QuerySet[ServiceToken]:
    return ServiceToken.objects.order_by("created_at", "id")

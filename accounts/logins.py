"""GitHub logins kept in the database: the operator's operations on them
(the management commands only call these). Who is let in is decided in
accounts.callers; this module only edits the list.
"""

import re

from django.db import transaction
from django.db.models import QuerySet

from accounts.errors import AccountsError
from accounts.models import AllowedLogin

LOGIN_MAX_LENGTH = 39
# GitHub's rule: letters and digits, single hyphens between them.
_LOGIN_RE = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")


def normalize_login(login: str) -> str:
    """The stored form of a login (lower-case), or AccountsError if it cannot be a GitHub login."""
    if len(login) > LOGIN_MAX_LENGTH or not _LOGIN_RE.fullmatch(login):
        raise AccountsError(
            f"Invalid GitHub login {login!r}: letters, digits and single hyphens between them, "
            f"at most {LOGIN_MAX_LENGTH} characters."
        )
    return login.lower()


def allow(login: str, *, zdr: bool = False) -> tuple[AllowedLogin, bool]:
    """Let a login in (and set its ZDR clearance if it is already in); returns (row, created)."""
    login = normalize_login(login)
    with transaction.atomic():
        row, created = AllowedLogin.objects.update_or_create(login=login, defaults={"zdr": zdr})
    return row, created


def disallow(login: str) -> None:
    login = normalize_login(login)
    deleted, _ = AllowedLogin.objects.filter(login=login).delete()
    if not deleted:
        raise AccountsError(f"The GitHub login {login!r} is not in the database list.")


def all_logins() -> QuerySet[AllowedLogin]:
    return AllowedLogin.objects.order_by("login")

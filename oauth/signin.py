"""Who signed in through GitHub, and whether they may (docs/reference.md#oauth).

    sign_in(github_user) -> User
        The Django user for this GitHub account (created on first sign-in, keyed by
        GitHub's numeric id, its login refreshed), once the login has passed the same
        allowlists as a personal access token: raises LoginNotAllowed otherwise.
    signed_in_caller(user) -> Caller
        The allowlist again for a user with a session (the consent page asks it each time).

A Django user exists only because django-oauth-toolkit ties grants and tokens to one;
it has no password and no permissions, and nothing but this app creates them.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.callers import Caller, caller_for_identity
from accounts.errors import LoginNotAllowed
from accounts.github import GitHubUser
from accounts.models import AllowedLogin, GitHubIdentity


def sign_in(github_user: GitHubUser) -> User:
    if github_user.id is None:
        raise LoginNotAllowed("GitHub did not say which account this is.")
    candidate = GitHubIdentity(login=github_user.login, github_id=github_user.id)
    caller_for_identity(candidate)  # raises LoginNotAllowed before anything is stored
    try:
        return _record(github_user.id, github_user.login)
    except IntegrityError:
        # Two first sign-ins of one account at once: both found no identity, and the other
        # one's rows were committed first. Its rows are there now; this one updates them.
        return _record(github_user.id, github_user.login)


def _record(github_id: int, login: str) -> User:
    with transaction.atomic():
        identity = GitHubIdentity.objects.select_for_update().filter(github_id=github_id).first()
        if identity is None:
            user = get_user_model().objects.create_user(username=f"github-{github_id}")
            identity = GitHubIdentity.objects.create(user=user, github_id=github_id, login=login)
        else:
            identity.login = login
            identity.signed_in_at = timezone.now()
            identity.save(update_fields=["login", "signed_in_at"])
            user = identity.user
        # Pin a database-listed login to this account: if the name later moves to someone
        # else, accounts.callers refuses them (a PAT too).
        AllowedLogin.objects.filter(login=login.lower(), github_id__isnull=True).update(github_id=github_id)
    return user


def signed_in_caller(user: User) -> Caller:
    identity = GitHubIdentity.objects.filter(user=user).first()
    if identity is None:
        raise LoginNotAllowed()
    return caller_for_identity(identity)

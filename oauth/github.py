"""The GitHub OAuth App web flow (docs/reference.md#oauth): where to send the browser, and
turning the code GitHub sends back into GitHub's token, through accounts.github_client
(its deadline, response cap and user agent).

    authorize_url(state, code_challenge) -> str
    exchange_code(code, code_verifier) -> str      (GitHub's access token)
        raises SignInFailed: GitHub refused the code (or answered nonsense)
        raises UpstreamUnavailable: GitHub could not be reached in time

The token is handed to accounts.github.fetch_user once by the caller, then dropped:
it is never stored, cached, logged or passed on.
"""

import logging
from urllib.parse import urlencode

from django.conf import settings

from accounts import github_client
from accounts.errors import UpstreamUnavailable

logger = logging.getLogger(__name__)


class SignInFailed(Exception):
    """GitHub did not accept the sign-in; the message is safe to show."""


def callback_url() -> str:
    return f"{settings.PUBLIC_BASE_URL}/oauth/github/callback/"


def authorize_url(state: str, code_challenge: str) -> str:
    query = urlencode(
        {
            "client_id": settings.GITHUB_OAUTH_CLIENT_ID,
            "redirect_uri": callback_url(),
            "state": state,
            "code_challenge": code_challenge,
            "code_challenge_method": "S256",
            # No scope: the public profile (login and id) is all /user needs to tell.
            "scope": "",
            "allow_signup": "false",
        }
    )
    return f"{settings.GITHUB_OAUTH_URL}/login/oauth/authorize?{query}"


def exchange_code(code: str, code_verifier: str) -> str:
    form = {
        "client_id": settings.GITHUB_OAUTH_CLIENT_ID,
        "client_secret": settings.GITHUB_OAUTH_CLIENT_SECRET,
        "code": code,
        "redirect_uri": callback_url(),
        "code_verifier": code_verifier,
    }
    answer = github_client.call(
        "POST",
        f"{settings.GITHUB_OAUTH_URL}/login/oauth/access_token",
        headers={"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"},
        body=urlencode(form).encode(),
        purpose="to finish the sign-in",
    )
    if answer.status >= 500 or answer.status == 429:
        logger.warning("GitHub's token endpoint answered %d", answer.status)
        raise UpstreamUnavailable("GitHub could not finish the sign-in; try again shortly.")
    data = answer.json()
    token = data.get("access_token") if isinstance(data, dict) else None
    if answer.status != 200 or not isinstance(token, str) or not token:
        # GitHub answers a bad code with 200 and {"error": "bad_verification_code"}.
        error = data.get("error") if isinstance(data, dict) else None
        logger.info(
            "GitHub refused the sign-in code (HTTP %d, %s)",
            answer.status,
            error if isinstance(error, str) else "-",
        )
        raise SignInFailed("GitHub did not accept this sign-in. Start again from your client.")
    return token

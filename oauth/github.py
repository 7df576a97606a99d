"""The GitHub OAuth App web flow (SPEC §10): where to send the browser, and turning the
code GitHub sends back into GitHub's token, bounded in time and size.

    authorize_url(state, code_challenge) -> str
    exchange_code(code, code_verifier) -> str      (GitHub's access token)
        raises SignInFailed: GitHub refused the code (or answered nonsense)
        raises UpstreamUnavailable: GitHub could not be reached in time

The token is handed to accounts.github.fetch_user once by the caller, then dropped:
it is never stored, cached, logged or passed on.
"""

import json
import logging
from urllib.parse import urlencode

import requests
from django.conf import settings

from accounts.errors import UpstreamUnavailable

logger = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 64 * 1024
USER_AGENT = "skills-registry"


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
    try:
        response = requests.post(
            f"{settings.GITHUB_OAUTH_URL}/login/oauth/access_token",
            data={
                "client_id": settings.GITHUB_OAUTH_CLIENT_ID,
                "client_secret": settings.GITHUB_OAUTH_CLIENT_SECRET,
                "code": code,
                "redirect_uri": callback_url(),
                "code_verifier": code_verifier,
            },
            headers={"Accept": "application/json", "User-Agent": USER_AGENT},
            timeout=settings.GITHUB_TIMEOUT_SECONDS,
            allow_redirects=False,
            stream=True,
        )
        body = response.raw.read(MAX_RESPONSE_BYTES + 1, decode_content=True)
        response.close()
    except requests.RequestException as exc:
        logger.warning("GitHub's token endpoint could not be reached (%s)", type(exc).__name__)
        raise UpstreamUnavailable("GitHub could not be reached to finish the sign-in; try again.") from None
    if response.status_code >= 500 or response.status_code == 429:
        logger.warning("GitHub's token endpoint answered %d", response.status_code)
        raise UpstreamUnavailable("GitHub could not finish the sign-in; try again shortly.")
    try:
        data = json.loads(body.decode("utf-8")) if len(body) <= MAX_RESPONSE_BYTES else None
    except (ValueError, RecursionError):
        data = None
    token = data.get("access_token") if isinstance(data, dict) else None
    if response.status_code != 200 or not isinstance(token, str) or not token:
        # GitHub answers a bad code with 200 and {"error": "bad_verification_code"}.
        error = data.get("error") if isinstance(data, dict) else None
        logger.info(
            "GitHub refused the sign-in code (HTTP %d, %s)",
            response.status_code,
            error if isinstance(error, str) else "-",
        )
        raise SignInFailed("GitHub did not accept this sign-in. Start again from your client.")
    return token

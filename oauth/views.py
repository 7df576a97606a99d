"""The OAuth pages and endpoints (docs/reference.md#oauth), thin around django-oauth-toolkit.

Every route answers 404 unless OAuth is configured (oauth.gate.require_oauth), exactly as if it
did not exist. Hand-written here: the GitHub sign-in in front of the authorize view,
the consent page (asked every time, naming the client and its redirect host), and
dynamic client registration behind oauth.registration's rules.
"""

import base64
import hashlib
import hmac
import logging
import secrets
from typing import Any
from urllib.parse import urlsplit

from django.contrib.auth import login, logout
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from oauth2_provider.views import AuthorizationView
from oauth2_provider.views.dynamic_client_registration import (
    DynamicClientRegistrationManagementView,
    DynamicClientRegistrationView,
)

from accounts.callers import Caller
from accounts.errors import InvalidToken, LoginNotAllowed, UpstreamUnavailable
from accounts.github import fetch_user
from oauth import github
from oauth.registration import registration_refusal
from oauth.signin import sign_in, signed_in_caller

logger = logging.getLogger(__name__)

_PENDING = "github_sign_in"
_AUTHORIZE_PATH = "/oauth/authorize/"
_MAX_CODE_LENGTH = 512


def _page(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(request, "oauth/message.html", {"title": title, "message": message}, status=status)


# --- sign-in through GitHub ---------------------------------------------------------------


@never_cache
@require_GET
def github_login(request: HttpRequest) -> HttpResponse:
    """Where the authorize view sends a browser without a session (LOGIN_URL)."""
    next_url = request.GET.get("next", "")
    if not (next_url.startswith(_AUTHORIZE_PATH) and url_has_allowed_host_and_scheme(next_url, None)):
        return _page(request, 400, "Nothing to sign in for", "Start the connection from your AI client.")
    state = secrets.token_urlsafe(32)
    verifier = secrets.token_urlsafe(64)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    request.session[_PENDING] = {"state": state, "verifier": verifier, "next": next_url}
    return HttpResponseRedirect(github.authorize_url(state, challenge))


@never_cache
@require_GET
def github_callback(request: HttpRequest) -> HttpResponse:
    pending = request.session.pop(_PENDING, None)
    state = request.GET.get("state", "")
    if not isinstance(pending, dict) or not hmac.compare_digest(state.encode(), pending["state"].encode()):
        return _page(
            request, 400, "Sign-in expired", "This sign-in was not started here, or was already used."
        )
    code = request.GET.get("code", "")
    if request.GET.get("error") or not code or len(code) > _MAX_CODE_LENGTH:
        return _page(request, 403, "Sign-in cancelled", "GitHub did not sign you in.")
    try:
        token = github.exchange_code(code, pending["verifier"])
        try:
            github_user = fetch_user(token)
        finally:
            del token  # used once for /user; never stored, logged or passed on
    except github.SignInFailed as failure:
        return _page(request, 403, "Sign-in failed", str(failure))
    except InvalidToken:
        return _page(request, 403, "Sign-in failed", "GitHub did not accept this sign-in.")
    except UpstreamUnavailable as error:
        return _page(request, 503, "GitHub is unavailable", error.message)
    try:
        user = sign_in(github_user)
    except LoginNotAllowed:
        logger.info("OAuth sign-in refused: GitHub login %s is not allowed", github_user.login)
        return _page(
            request,
            403,
            "Not allowed",
            f"The GitHub account {github_user.login} is not allowed to use this registry. "
            "Ask its operator to add your login.",
        )
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    logger.info("OAuth sign-in: GitHub login %s", github_user.login)
    return HttpResponseRedirect(pending["next"])


# --- authorization: consent every time ----------------------------------------------------


class ConsentView(AuthorizationView):
    """DOT's authorize view with this registry's consent page, asked every time: an
    `approval_prompt=auto` is dropped, so earlier grants never skip it. A signed-in user
    is checked against the allowlists again before the page is shown or a code issued."""

    template_name = "oauth/consent.html"
    caller: Caller | None = None

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.GET.get("approval_prompt"):
            kept = request.GET.copy()
            kept.pop("approval_prompt")
            request.GET = QueryDict(kept.urlencode())
        if request.user.is_authenticated:
            try:
                self.caller = signed_in_caller(request.user)
            except LoginNotAllowed:
                logout(request)
                return _page(request, 403, "Not allowed", "This account may no longer use this registry.")
        return super().dispatch(request, *args, **kwargs)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        redirect_uri = context.get("redirect_uri") or ""
        context["redirect_host"] = urlsplit(redirect_uri).hostname or ""
        context["caller_login"] = self.caller.name if self.caller is not None else ""
        return context


class RegistrationView(DynamicClientRegistrationView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        refusal = registration_refusal(request.body)
        if refusal is not None:
            return refusal
        # A registration never belongs to whoever happens to be signed in in this browser.
        request.user = AnonymousUser()
        return super().post(request, *args, **kwargs)


class RegistrationManagementView(DynamicClientRegistrationManagementView):
    def put(self, request: HttpRequest, client_id: str, *args: Any, **kwargs: Any) -> HttpResponse:
        refusal = registration_refusal(request.body)
        if refusal is not None:
            return refusal
        return super().put(request, client_id, *args, **kwargs)

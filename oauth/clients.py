"""The operator's view of registered OAuth clients (the management command only calls these).

Revoking a client deletes it, and with it (database cascade) every grant, access token
and refresh token it holds: its next /mcp request is refused.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model


class UnknownClient(Exception):
    pass


@dataclass(frozen=True, slots=True)
class ClientSummary:
    client_id: str
    name: str
    source: str
    client_type: str
    redirect_uris: list[str]
    created: datetime
    live_tokens: int


def all_clients() -> list[ClientSummary]:
    now = timezone.now()
    tokens = get_access_token_model().objects
    summaries = []
    for app in get_application_model().objects.order_by("created", "id"):
        summaries.append(
            ClientSummary(
                client_id=app.client_id,
                name=app.name,
                source=app.registration_source,
                client_type=app.client_type,
                redirect_uris=app.redirect_uris.split(),
                created=app.created,
                # Registration tokens (no user) are not someone's access.
                live_tokens=tokens.filter(application=app, user__isnull=False, expires__gt=now).count(),
            )
        )
    return summaries


def revoke(client_id: str) -> None:
    with transaction.atomic():
        deleted, _ = get_application_model().objects.filter(client_id=client_id).delete()
    if not deleted:
        raise UnknownClient(f"No OAuth client has the id {client_id!r}.")

"""revoke_token NAME: refuse that service token from the next request on."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import tokens
from accounts.errors import AccountsError


class Command(BaseCommand):
    help = "Revoke the active service token of that name; it is refused from the next request on."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")

    def handle(self, *args: object, name: str, **options: object) -> None:
        try:
            row = tokens.revoke(name)
        except AccountsError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Revoked token {row.name!r}.")

"""create_token NAME [--zdr]: issue a service token and print it, once."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import tokens
from accounts.errors import AccountsError


class Command(BaseCommand):
    help = "Create a service token for /mcp. The token is printed once; only its hash is stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "name", help="a name for the caller, e.g. ci or laptop (its identity: token:NAME)"
        )
        parser.add_argument("--zdr", action="store_true", help="also clear it for required_zdr skills")

    def handle(self, *args: object, name: str, zdr: bool, **options: object) -> None:
        try:
            row, token = tokens.issue(name, zdr=zdr)
        except AccountsError as exc:
            raise CommandError(str(exc)) from None
        # The token alone on stdout, so `TOKEN=$(manage.py create_token ci)` works;
        # the hint goes to stderr.
        self.stdout.write(token)
        self.stderr.write(
            f"Created token {row.name!r} (zdr: {'yes' if row.zdr else 'no'}). "
            "Copy it now: it is shown only this once and stored only as a hash.",
            style_func=self.style.WARNING,
        )

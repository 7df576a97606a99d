"""allow_login LOGIN [--zdr]: let a GitHub login in (or change its ZDR clearance)."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import logins
from accounts.errors import AccountsError


class Command(BaseCommand):
    help = "Let a GitHub login use the registry; if it is already listed, set its ZDR clearance."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("login", help="a GitHub login (compared case-insensitively)")
        parser.add_argument("--zdr", action="store_true", help="also clear it for required_zdr skills")

    def handle(self, *args: object, login: str, zdr: bool, **options: object) -> None:
        try:
            row, created = logins.allow(login, zdr=zdr)
        except AccountsError as exc:
            raise CommandError(str(exc)) from None
        verb = "Allowed" if created else "Updated"
        self.stdout.write(f"{verb} GitHub login {row.login!r} (zdr: {'yes' if row.zdr else 'no'}).")

"""disallow_login LOGIN: remove a GitHub login from the database list."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import logins
from accounts.errors import AccountsError


class Command(BaseCommand):
    help = "Remove a GitHub login from the database list; it is refused from the next request on."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("login")

    def handle(self, *args: object, login: str, **options: object) -> None:
        try:
            logins.disallow(login)
        except AccountsError as exc:
            raise CommandError(str(exc)) from None
        folded = login.lower()
        self.stdout.write(f"Removed GitHub login {folded!r}.")
        # The environment lists are outside this command's reach and still let the login in.
        for variable in ("ALLOWED_GITHUB_LOGINS", "ZDR_GITHUB_LOGINS"):
            if folded in {item.lower() for item in getattr(settings, variable)}:
                self.stderr.write(
                    f"Note: {folded!r} is still listed in {variable}, which keeps letting it in.",
                    style_func=self.style.WARNING,
                )

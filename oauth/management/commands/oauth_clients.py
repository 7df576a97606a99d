"""oauth_clients: list the OAuth clients registered with this registry, or revoke one."""

from argparse import ArgumentParser

from django.core.management.base import BaseCommand, CommandError

from oauth import clients


class Command(BaseCommand):
    help = (
        "List the OAuth clients registered with this registry, or revoke one with "
        "--revoke CLIENT_ID (it and every token it holds are deleted at once)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--revoke", metavar="CLIENT_ID", help="Delete this client and all its tokens.")

    def handle(self, *args: object, **options: object) -> None:
        client_id = options.get("revoke")
        if client_id:
            try:
                clients.revoke(str(client_id))
            except clients.UnknownClient as error:
                raise CommandError(str(error)) from None
            self.stdout.write(f"Revoked OAuth client {client_id} and its tokens.")
            return
        rows = clients.all_clients()
        if not rows:
            self.stdout.write("No OAuth clients are registered.")
            return
        for row in rows:
            self.stdout.write(
                f"{row.client_id}  {row.name or '(no name)'}  {row.source}/{row.client_type}  "
                f"created {row.created.isoformat(timespec='seconds')}  {row.live_tokens} live tokens"
            )
            for uri in row.redirect_uris:
                self.stdout.write(f"    redirect {uri}")

"""manage.py publish <rev> [--repo PATH] [--rollback] [--switch-repository]
(docs/reference.md#commands)."""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.errors import PublishError
from catalog.publish_report import published_lines


class Command(BaseCommand):
    # The project's system checks (templates, URLs, OAuth and deploy settings) guard the server
    # and run in `make lint` and at gunicorn start; here they were a quarter of a one-skill
    # republish (py-spy, docs/benchmarks.md) and check nothing a publish depends on.
    requires_system_checks: list[str] = []
    help = (
        "Validate a commit of the skills repository (read from git objects, never the working tree) "
        "and store and activate it as the registry's snapshot, in one transaction."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("rev", help="A commit: full or abbreviated SHA, branch, tag, HEAD~1, ...")
        parser.add_argument(
            "--repo",
            default=None,
            help="The skills repository (default: SKILLS_REPO_PATH, else the project).",
        )
        parser.add_argument(
            "--rollback",
            action="store_true",
            help="Allow a commit that is not a descendant of the active one, and skip the version rule.",
        )
        parser.add_argument(
            "--switch-repository",
            action="store_true",
            help="Allow replacing an active snapshot whose commit is not in this repository (another "
            "repository's skills): the commit is then checked like a first publish.",
        )

    def handle(
        self,
        *args: Any,
        rev: str,
        repo: str | None,
        rollback: bool,
        switch_repository: bool,
        verbosity: int,
        **options: Any,
    ) -> None:
        path = repo or settings.SKILLS_REPO_PATH
        try:
            lines = published_lines(
                path, rev, rollback=rollback, switch_repository=switch_repository, verbosity=verbosity
            )
        except PublishError as exc:
            raise CommandError(str(exc)) from None
        for line in lines:
            self.stdout.write(line)

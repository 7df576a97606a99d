"""check_skills: validate the skills repository's working tree before pushing
(docs/reference.md#commands). The rules and the output are the catalog's; this only
parses the arguments and sets the exit code (0 valid, 1 problems, 2 bad arguments)."""

import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.report import report_json, report_text
from catalog.trees import TreeError
from catalog.validation import check_working_tree

# Problems found is 1 (what CI checks); a command that could not run at all is 2.
EXIT_PROBLEMS = 1
EXIT_USAGE = 2


class Command(BaseCommand):
    help = "Validate the skills in a repository's working tree (uncommitted edits included)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--repo", help="the skills repository (default: SKILLS_REPO_PATH)")
        parser.add_argument("--base", help="a revision to enforce version bumps against (e.g. origin/main)")
        parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = check_working_tree(options["repo"] or settings.SKILLS_REPO_PATH, options["base"])
        except TreeError as exc:
            raise CommandError(str(exc), returncode=EXIT_USAGE) from None
        if options["format"] == "json":
            self.stdout.write(report_json(report))
        else:
            out, err = report_text(report)
            for line in out:
                self.stdout.write(line)
            for line in err:
                self.stderr.write(line)
        if not report.ok:
            # Not CommandError: that would add a "CommandError:" line to the exact output format.
            sys.exit(EXIT_PROBLEMS)

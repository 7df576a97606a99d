"""check_skills: validate the skills repository's working tree before pushing
(docs/reference.md#commands). The rules and the output are the catalog's; this only
parses the arguments and sets the exit code (0 valid, 1 problems, 2 bad arguments)."""

import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.config import CONFIG_FILENAME
from catalog.report import report_json, report_text
from catalog.trees import TreeError, WorkingTree
from catalog.validation import check_working_tree, config_entry_kind

# Problems found is 1 (what CI checks); a command that could not run at all is 2.
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
DEFAULTS_NOTE = f"{CONFIG_FILENAME}: not found; using the built-in defaults"


class Command(BaseCommand):
    help = "Validate the skills in a repository's working tree (uncommitted edits included)."
    # An author runs this on a bare checkout: the system checks judge the server's settings
    # (secret key, hosts, callers), none of which validation reads (docs/reference.md#commands).
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--repo", help="the skills repository (default: SKILLS_REPO_PATH)")
        parser.add_argument("--base", help="a revision to enforce version bumps against (e.g. origin/main)")
        parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")

    def handle(self, *args: Any, **options: Any) -> None:
        repo = options["repo"] or settings.SKILLS_REPO_PATH
        try:
            report = check_working_tree(repo, options["base"])
            defaults = config_entry_kind(WorkingTree(repo)) is None
        except TreeError as exc:
            raise CommandError(str(exc), returncode=EXIT_USAGE) from None
        if options["format"] == "json":
            self.stdout.write(report_json(report, "defaults" if defaults else CONFIG_FILENAME))
        else:
            out, err = report_text(report)
            if defaults:
                out.insert(0, DEFAULTS_NOTE)  # a note, not a problem: never counted
            for line in out:
                self.stdout.write(line)
            for line in err:
                self.stderr.write(line)
        if not report.ok:
            # Not CommandError: that would add a "CommandError:" line to the exact output format.
            sys.exit(EXIT_PROBLEMS)

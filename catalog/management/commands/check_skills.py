"""check_skills: validate the skills repository's working tree before pushing (SPEC §4).

Thin on purpose: the rules live in catalog.validation; this only picks the trees,
prints the report and sets the exit code (0 valid, 1 problems, 2 bad arguments).
"""

import json
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.trees import GitTree, TreeError, WorkingTree, open_repo, resolve_commit
from catalog.validation import BaseSkill, ValidationReport, base_skills_from_tree, validate_tree

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
        repo_path = options["repo"] or settings.SKILLS_REPO_PATH
        try:
            tree = WorkingTree(repo_path)
            base = self._base(repo_path, options["base"]) if options["base"] is not None else None
        except TreeError as exc:
            raise CommandError(str(exc), returncode=EXIT_USAGE) from None
        report = validate_tree(tree, base)
        if options["format"] == "json":
            self._print_json(report)
        else:
            self._print_text(report)
        if not report.ok:
            # Not CommandError: that would add a "CommandError:" line to the exact output format.
            sys.exit(EXIT_PROBLEMS)

    def _base(self, repo_path: str, rev: str) -> dict[str, BaseSkill]:
        repo = open_repo(repo_path)
        try:
            return base_skills_from_tree(GitTree(repo, resolve_commit(repo, rev)))
        finally:
            repo.close()

    def _print_text(self, report: ValidationReport) -> None:
        for problem in report.problems:
            self.stdout.write(_one_line(f"{problem.path}: {problem.message}"))
        if report.ok:
            count = len(report.skills)
            self.stdout.write(f"OK: {count} skill{'' if count == 1 else 's'} valid.")
        else:
            count = len(report.problems)
            self.stderr.write(f"{count} problem{'' if count == 1 else 's'} found.")

    def _print_json(self, report: ValidationReport) -> None:
        document = {
            "ok": report.ok,
            "skills": len(report.skills),
            "problems": [
                {"path": problem.path, "code": problem.code, "message": problem.message}
                for problem in report.problems
            ],
        }
        self.stdout.write(json.dumps(document, indent=2, ensure_ascii=False))


def _one_line(text: str) -> str:
    # A file name may contain a line break; each problem must still be exactly one line.
    return text.replace("\r", "\\r").replace("\n", "\\n")

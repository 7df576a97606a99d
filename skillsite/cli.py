"""`skills-registry`: the registry's commands for a skills repository of its own, installed
with `pip install "skills-registry @ git+<the registry's git URL>"` (no clone of the
registry needed; docs/reference.md#outside-managepy).

    skills-registry check [--base REV] [--format json] [--repo PATH]    check_skills
    skills-registry publish REV [--rollback] [--switch-repository] ...  publish
    skills-registry manage COMMAND [ARGS]                               any manage.py command

Each runs the Django management command with the project's settings. The repository is
`--repo`, else SKILLS_REPO_PATH, else the current directory (not the installed package's).
`check` needs nothing from the environment; the others read and write the registry's
database, so DATABASE_URL must name it (the default SQLite file would sit inside the
installed package, where nobody serves it).
"""

import os
import sys
from collections.abc import Sequence

PROG = "skills-registry"
# subcommand -> the management command it runs (None: the next argument names it).
SUBCOMMANDS: dict[str, str | None] = {"check": "check_skills", "publish": "publish", "manage": None}
USAGE = f"""usage: {PROG} check [--base REV] [--format text|json] [--repo PATH]
       {PROG} publish REV [--rollback] [--switch-repository] [--repo PATH]
       {PROG} manage COMMAND [ARGS...]   (any manage.py command, e.g. migrate --noinput)

The skills repository is --repo, else SKILLS_REPO_PATH, else the current directory.
publish and manage need DATABASE_URL (the registry's database)."""
EXIT_USAGE = 2


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if not args or args[0] not in SUBCOMMANDS or (args[0] == "manage" and len(args) == 1):
        print(USAGE, file=sys.stderr)
        return EXIT_USAGE
    subcommand, rest = args[0], args[1:]
    if subcommand != "check" and not os.environ.get("DATABASE_URL"):
        print(f"{PROG} {subcommand}: set DATABASE_URL to the registry's database", file=sys.stderr)
        return EXIT_USAGE
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillsite.settings")
    os.environ.setdefault("SKILLS_REPO_PATH", os.getcwd())

    from django.core.management import execute_from_command_line

    command = SUBCOMMANDS[subcommand]
    execute_from_command_line([PROG, *([command] if command else []), *rest])
    return 0


if __name__ == "__main__":
    sys.exit(main())

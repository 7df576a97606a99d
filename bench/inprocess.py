"""Django in this very process, for the benchmarks that measure a request through
`django.test.Client` rather than over a socket: the settings from the environment, a fresh
SQLite database migrated, one commit published."""

import os
import sys
from pathlib import Path

from tests.support.project import PROJECT_DIR


def configure(db_path: Path, env: dict[str, str]) -> None:
    """Django set up on `db_path`; `env` adds to the settings every such benchmark shares (its
    tokens, a log level)."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "skillsite.settings",
            "DJANGO_SECRET_KEY": "bench-secret-key-not-for-production-0123456789",
            "DJANGO_DEBUG": "false",
            "DJANGO_ALLOWED_HOSTS": "testserver",
            "DATABASE_URL": f"sqlite:///{db_path}",
            **env,
        }
    )
    sys.path.insert(0, str(PROJECT_DIR))
    import django

    django.setup()


def migrate_and_publish(repo: Path) -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from catalog.publishing import publish

    publish(repo, "HEAD")


def setup_published(db_path: Path, repo: Path, env: dict[str, str]) -> None:
    configure(db_path, env)
    migrate_and_publish(repo)

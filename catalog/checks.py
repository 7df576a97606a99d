"""The catalog's system checks (ids registry.*), registered in CatalogConfig.ready().

`manage.py check --deploy` runs them; CI runs it with a production-like environment.
"""

from pathlib import Path

from django.conf import settings
from django.core.checks import CheckMessage, Warning, register


@register(deploy=True)
def check_skills_repo(app_configs: object = None, **kwargs: object) -> list[CheckMessage]:
    path = Path(settings.SKILLS_REPO_PATH)
    if (path / ".git").exists() or (path / "HEAD").is_file():
        return []
    return [
        Warning(
            f"SKILLS_REPO_PATH ({path}) is not a git repository: `manage.py publish` has nothing to read.",
            hint="Point SKILLS_REPO_PATH at a clone of the skills repository (or pass --repo).",
            id="registry.W003",
        )
    ]

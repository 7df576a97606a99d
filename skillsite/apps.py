from django.apps import AppConfig


class SkillsiteConfig(AppConfig):
    name = "skillsite"
    verbose_name = "Skills Registry project"

    def ready(self) -> None:
        from skillsite import checks  # noqa: F401 - registers the system checks

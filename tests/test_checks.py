"""The system checks: each app registers its own (in its checks.py, from its ready()), and
each says what it is for."""

from pathlib import Path

import pytest
from django.core.checks import run_checks

from accounts.checks import check_callers_configured
from accounts.models import ServiceToken
from catalog.checks import check_skills_repo
from skillsite.checks import check_debug_in_production
from tests.support.repos import SkillRepo


def ids(messages: list) -> list[str]:
    return [message.id for message in messages]


@pytest.fixture
def nothing_configured(settings, tmp_path: Path) -> None:
    settings.SKILLS_READ_TOKENS = []
    settings.SKILLS_ZDR_TOKENS = []
    settings.ALLOWED_GITHUB_LOGINS = []
    settings.ZDR_GITHUB_LOGINS = []
    settings.SKILLS_REPO_PATH = str(tmp_path)
    settings.DEBUG = True
    settings.ALLOWED_HOSTS = ["skills.example.com"]


@pytest.mark.django_db
def test_every_app_registers_its_checks_with_django(nothing_configured) -> None:
    found = ids(run_checks(include_deployment_checks=True))
    assert {"registry.E001", "registry.W002", "registry.W003"} <= set(found)


def test_debug_with_a_public_host_is_an_error(settings) -> None:
    settings.DEBUG = True
    settings.ALLOWED_HOSTS = ["127.0.0.1", "skills.example.com"]
    assert ids(check_debug_in_production()) == ["registry.E001"]
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
    assert check_debug_in_production() == []
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["skills.example.com"]
    assert check_debug_in_production() == []


@pytest.mark.django_db
def test_no_caller_anywhere_is_a_warning(nothing_configured, settings) -> None:
    assert ids(check_callers_configured()) == ["registry.W002"]
    settings.ALLOWED_GITHUB_LOGINS = ["alice"]
    assert check_callers_configured() == []


@pytest.mark.django_db
def test_a_database_token_counts_as_a_caller_until_it_is_revoked(nothing_configured) -> None:
    from django.utils import timezone

    row = ServiceToken.objects.create(name="ci", prefix="skr_x", digest="0" * 64)
    assert check_callers_configured() == []
    row.revoked_at = timezone.now()
    row.save()
    assert ids(check_callers_configured()) == ["registry.W002"]


def test_a_skills_repo_path_that_is_not_git_is_a_warning(settings, tmp_path: Path) -> None:
    settings.SKILLS_REPO_PATH = str(tmp_path)
    assert ids(check_skills_repo()) == ["registry.W003"]
    settings.SKILLS_REPO_PATH = str(SkillRepo(tmp_path / "repo").root)
    assert check_skills_repo() == []

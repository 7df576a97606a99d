"""publish --switch-repository: the first commit of another repository than the active
snapshot's is a deliberate step of its own (docs/reference.md#publish), tried with two real
repositories."""

from collections.abc import Callable
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.errors import PublishError
from catalog.models import Snapshot
from catalog.publishing import Outcome, publish
from tests.catalog.publish_support import bump, publish_refusal, two_skills
from tests.support.repos import SkillRepo

pytestmark = pytest.mark.django_db

Repos = tuple[SkillRepo, str, SkillRepo, str]


def active_sha() -> str | None:
    return Snapshot.objects.filter(is_active=True).values_list("sha", flat=True).first()


@pytest.fixture
def two_repositories(make_repo: Callable[..., SkillRepo]) -> Repos:
    """`first` published and active; `second` another repository whose only skill is
    first's alpha, changed, at a LOWER version: the version rule against the active
    snapshot would refuse it."""
    first, second = make_repo(), make_repo()
    first_sha = two_skills(first)
    publish(first.root, first_sha)
    second_sha = bump(second, "alpha", "0.1.0", "Another team's alpha.\n")
    return first, first_sha, second, second_sha


def test_another_repository_is_refused_with_a_message_naming_the_flag(two_repositories: Repos) -> None:
    _, first_sha, second, second_sha = two_repositories
    message = publish_refusal(second.root, second_sha)
    assert f"the active snapshot {first_sha} is not a commit of this repository ({second.root})" in message
    assert "Pass --switch-repository to make this repository the registry's source" in message
    assert "no descendant or version rule against the active snapshot" in message
    assert "--rollback" not in message
    assert active_sha() == first_sha


def test_rollback_does_not_switch_repositories(two_repositories: Repos) -> None:
    _, first_sha, second, second_sha = two_repositories
    with pytest.raises(PublishError, match="Pass --switch-repository"):
        publish(second.root, second_sha, rollback=True)
    assert active_sha() == first_sha


def test_the_flag_publishes_it_like_a_first_publish(two_repositories: Repos) -> None:
    _, first_sha, second, second_sha = two_repositories
    result = publish(second.root, second_sha, switch_repository=True)
    assert result.outcome is Outcome.PUBLISHED
    assert (result.previous_sha, result.skill_count, result.reused_skills) == (first_sha, 1, 0)
    assert f"previously active: {first_sha} of another repository" in result.summary()
    assert active_sha() == second_sha


def test_switching_back_activates_the_stored_snapshot_again(two_repositories: Repos) -> None:
    first, first_sha, second, second_sha = two_repositories
    publish(second.root, second_sha, switch_repository=True)
    with pytest.raises(PublishError, match="Pass --switch-repository"):
        publish(first.root, first_sha)
    result = publish(first.root, first_sha, switch_repository=True)
    assert result.outcome is Outcome.REACTIVATED
    assert active_sha() == first_sha


def test_the_switched_to_repository_then_publishes_without_the_flag(two_repositories: Repos) -> None:
    _, _, second, second_sha = two_repositories
    publish(second.root, second_sha, switch_repository=True)
    newer = bump(second, "alpha", "0.2.0", "Another team's alpha, better.\n")
    assert publish(second.root, newer).sha == newer


def test_within_one_repository_the_flag_changes_nothing(two_repositories: Repos) -> None:
    first, first_sha, _, _ = two_repositories
    unbumped = bump(first, "beta", "1.0.0", "Changed without a bump.\n")
    with pytest.raises(PublishError, match="content changed since the base revision"):
        publish(first.root, unbumped, switch_repository=True)
    bumped = bump(first, "beta", "1.1.0", "Changed with a bump.\n")
    assert publish(first.root, bumped).sha == bumped
    with pytest.raises(PublishError, match=r"is an ancestor of the active snapshot.*pass --rollback"):
        publish(first.root, first_sha, switch_repository=True)
    assert active_sha() == bumped


def test_the_command_takes_the_flag(two_repositories: Repos) -> None:
    _, first_sha, second, second_sha = two_repositories
    with pytest.raises(CommandError, match="Pass --switch-repository"):
        call_command("publish", second_sha, "--repo", str(second.root), stdout=StringIO())
    out = StringIO()
    call_command("publish", second_sha, "--repo", str(second.root), "--switch-repository", stdout=out)
    assert out.getvalue().startswith(f"Published {second_sha}: 1 skills")
    assert f"previously active: {first_sha} of another repository" in out.getvalue()

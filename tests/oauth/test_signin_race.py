"""Two first sign-ins of one GitHub account at once never give a 500 (issue 15, finding 10).

Both find no identity; the one that commits second used to hit the unique username (an
IntegrityError, Django's 500 page). Run for real on PostgreSQL, where the second insert waits
on the first transaction's row and fails when it commits; SQLite's IMMEDIATE transactions
queue the two whole sign-ins, so there is no race to lose there and the test is skipped.
"""

import threading

import pytest
from django.db import connection

from accounts.github import GitHubUser
from accounts.models import AllowedLogin, GitHubIdentity
from oauth.signin import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

ALICE = GitHubUser(login="alice", id=424242)


@pytest.fixture(autouse=True)
def postgres_only(settings) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's row-level waits (TEST_DATABASE_URL=postgres://...)")
    settings.ALLOWED_GITHUB_LOGINS = []
    settings.ZDR_GITHUB_LOGINS = []


def on_thread(work) -> tuple[threading.Thread, dict[str, object]]:
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except Exception as error:  # the test reports whatever happened
            outcome["error"] = error
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def test_two_first_sign_ins_of_one_account_at_once_both_succeed_as_one_user() -> None:
    from django.db import transaction

    AllowedLogin.objects.create(login="alice")
    first_inserted = threading.Event()
    release_first = threading.Event()

    def first():
        # A first sign-in that has inserted its rows and not committed yet...
        with transaction.atomic():
            user = sign_in(ALICE)
            first_inserted.set()
            release_first.wait(10)
        return user

    first_thread, first_outcome = on_thread(first)
    assert first_inserted.wait(10)
    # ...while a second one starts: it finds no committed identity and inserts too.
    second_thread, second_outcome = on_thread(lambda: sign_in(ALICE))
    second_thread.join(0.5)  # it is waiting on the first one's row
    assert second_thread.is_alive()
    release_first.set()
    first_thread.join(10)
    second_thread.join(10)

    assert "error" not in first_outcome, first_outcome
    assert "error" not in second_outcome, second_outcome
    assert first_outcome["value"].pk == second_outcome["value"].pk
    assert GitHubIdentity.objects.filter(github_id=ALICE.id).count() == 1
    assert AllowedLogin.objects.get(login="alice").github_id == ALICE.id

"""mcpapi.cursors signs and reads cursors exactly as django.core.signing.Signer(salt=...) does
(sign_object / unsign_object), its HMAC key worked out once per secret: every cursor handed out
before stays valid, and a key rotation (SECRET_KEY_FALLBACKS) is honoured."""

import base64
import hashlib

import pytest
from django.core import signing
from django.test import override_settings

from mcpapi import cursors
from mcpapi.jsonrpc import dumps_text

REVISION = "c" * 40
QUERY = cursors.query_key("skills_list", ["tag"], False)


def django_cursor(position: int, revision: str = REVISION, query: str = QUERY) -> str:
    return signing.Signer(salt=cursors._SALT).sign_object([revision, query, position])


@pytest.mark.parametrize("position", [0, 1, 50, 999, 10**12])
def test_a_cursor_is_the_one_django_signs(position: int) -> None:
    assert cursors.encode(REVISION, QUERY, position) == django_cursor(position)
    assert cursors.decode(django_cursor(position), REVISION, QUERY) == position


# What orjson writes otherwise than json.dumps (non-ASCII, which json escapes; a lone surrogate
# and an integer past 64 bits, which orjson refuses) and what both escape alike.
AWKWARD_PARTS = ["é", "—🎉", "\ud800", '"\\', "\x00\x1f\x7f", "\u2028", ""]


@pytest.mark.parametrize("part", AWKWARD_PARTS, ids=range(len(AWKWARD_PARTS)))
def test_a_cursor_of_any_revision_or_query_is_the_one_django_signs(part: str) -> None:
    for revision, query, position in ((part, QUERY, 3), (REVISION, part, 0), (part, part, 2**70)):
        made = cursors.encode(revision, query, position)
        assert made == django_cursor(position, revision, query)
        assert cursors.decode(made, revision, query) == position


@pytest.mark.parametrize("part", AWKWARD_PARTS, ids=range(len(AWKWARD_PARTS)))
def test_a_query_key_is_the_digest_of_the_json_of_its_parts(part: str) -> None:
    parts = ("skills_search", part, [part, "b"], True, False, 7)
    try:
        expected = hashlib.sha256(dumps_text(parts).encode("utf-8")).hexdigest()[:24]
    except UnicodeEncodeError:  # a lone surrogate: as before, the error and no key
        with pytest.raises(UnicodeEncodeError):
            cursors.query_key(*parts)
        return
    assert cursors.query_key(*parts) == expected


def test_a_new_secret_signs_with_its_own_key() -> None:
    before = cursors.encode(REVISION, QUERY, 5)
    with override_settings(SECRET_KEY="another-secret-key-for-this-test-only-0123456789"):
        after = cursors.encode(REVISION, QUERY, 5)
        assert after == django_cursor(5)
        with pytest.raises(cursors.InvalidCursor):
            cursors.decode(before, REVISION, QUERY)
    assert after != before


def test_a_cursor_signed_with_a_fallback_key_is_read(settings) -> None:  # type: ignore[no-untyped-def]
    old = cursors.encode(REVISION, QUERY, 7)
    with override_settings(
        SECRET_KEY="the-rotated-in-secret-key-of-this-test-0123456789",
        SECRET_KEY_FALLBACKS=["", settings.SECRET_KEY],
    ):
        assert cursors.decode(old, REVISION, QUERY) == 7


def test_an_empty_fallback_key_signs_nothing() -> None:
    empty_key = signing.Signer(salt=cursors._SALT, key="x").sign_object([REVISION, QUERY, 1])
    signed = empty_key.rsplit(":", 1)[0]
    forged = signed + ":" + cursors._signature(signed.encode(), "").decode()
    with override_settings(SECRET_KEY_FALLBACKS=[""]), pytest.raises(cursors.InvalidCursor):
        cursors.decode(forged, REVISION, QUERY)


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        ":",
        "no-colon",
        django_cursor(3)[:-1] + "A",
        django_cursor(3).replace(":", ";"),
        "\ud800:" + django_cursor(3).split(":")[1],
        django_cursor(3) + "\ud800",
        signing.Signer(salt=cursors._SALT).sign("not base64 !"),
        signing.Signer(salt=cursors._SALT).sign_object({"not": "a list"}),
        signing.Signer(salt=cursors._SALT).sign_object([REVISION, QUERY, -1]),
        signing.Signer(salt=cursors._SALT).sign_object([REVISION, QUERY, True]),
        signing.Signer(salt="another salt").sign_object([REVISION, QUERY, 3]),
        "x" * (cursors.MAX_CURSOR_CHARS + 1),
    ],
)
def test_what_django_refuses_is_an_invalid_cursor(cursor: str) -> None:
    with pytest.raises(cursors.InvalidCursor):
        cursors.decode(cursor, REVISION, QUERY)


def test_a_cursor_of_another_revision_is_stale_and_of_another_query_invalid() -> None:
    with pytest.raises(cursors.StaleCursor):
        cursors.decode(django_cursor(3, revision="d" * 40), REVISION, QUERY)
    with pytest.raises(cursors.InvalidCursor):
        cursors.decode(django_cursor(3, query="e" * 24), REVISION, QUERY)


@pytest.mark.parametrize("length", [0, 1, 55, 56, 63, 64, 65, 119, 128, 1000])
@pytest.mark.parametrize("secret", ["s", "é" * 80, b"\x00\xff" * 40])
def test_the_signature_is_the_hmac_of_signers_key(length: int, secret: str | bytes) -> None:
    # The HMAC worked out from the kept padded-key states, against hmac's own, across SHA-256's
    # block edges, for a short secret, a long one and bytes (Signer's key is their digest).
    value = bytes(range(256))[:length] * (1 + length // 256)
    value = value[:length]
    key = signing.salted_hmac(cursors._SALT + "signer", value, secret, algorithm="sha256").digest()
    assert base64.urlsafe_b64decode(cursors._signature(value, secret) + b"=") == key


def test_a_cursor_changed_in_any_character_is_refused() -> None:
    made = cursors.encode(REVISION, QUERY, 7)
    for at in range(len(made)):
        changed = made[:at] + ("A" if made[at] != "A" else "B") + made[at + 1 :]
        with pytest.raises(cursors.InvalidCursor):
            cursors.decode(changed, REVISION, QUERY)

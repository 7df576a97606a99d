"""catalog.checkpoints: off unless the PUBLISH_PAUSE_AT setting names the point."""

import pytest

from catalog import checkpoints


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(checkpoints.time, "sleep", slept.append)
    return slept


def test_a_checkpoint_does_nothing_by_default(
    settings, sleeps: list[float], capsys: pytest.CaptureFixture[str]
) -> None:
    assert settings.PUBLISH_PAUSE_AT == ""
    for point in ("blobs", "skills", "activate"):
        checkpoints.reached(point)
    assert sleeps == []
    assert capsys.readouterr() == ("", "")


def test_the_named_point_says_so_on_stderr_and_waits(
    settings, sleeps: list[float], capsys: pytest.CaptureFixture[str]
) -> None:
    settings.PUBLISH_PAUSE_AT = "skills"
    settings.PUBLISH_PAUSE_SECONDS = 2.5
    checkpoints.reached("blobs")
    assert sleeps == []
    checkpoints.reached("skills")
    assert sleeps == [2.5]
    assert capsys.readouterr().err == f"{checkpoints.PAUSE_MARKER}skills\n"

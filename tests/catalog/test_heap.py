"""catalog.heap: the C heap's free pages handed back after an index is built."""

import platform

import pytest

from catalog import heap


def test_malloc_trim_is_found_on_glibc() -> None:
    """The guard must not switch the trim off where it exists (it did nothing, silently)."""
    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")

    assert heap._malloc_trim is not None
    assert heap.release_free_memory() is True


def test_the_whole_heap_is_trimmed(monkeypatch: pytest.MonkeyPatch) -> None:
    pads: list[int] = []
    monkeypatch.setattr(heap, "_malloc_trim", lambda pad: pads.append(pad) or 1)

    assert heap.release_free_memory() is True
    assert pads == [0]  # 0: keep no free pad at the top of the heap


def test_without_malloc_trim_nothing_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_malloc_trim", None)

    assert heap.release_free_memory() is False


def test_elsewhere_than_glibc_there_is_no_trim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "libc_ver", lambda: ("", ""))

    assert heap._find_malloc_trim() is None

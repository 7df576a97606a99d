"""catalog.heap: the C heap's free pages handed back after an index is built; one arena."""

import ctypes
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

    assert heap._glibc_function("malloc_trim", ctypes.c_size_t) is None


def test_the_arena_limit_is_found_and_set_on_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    monkeypatch.delenv(heap.ARENA_VARIABLE, raising=False)

    assert heap._mallopt is not None
    assert heap.limit_arenas() is True  # mallopt answers 1 when it took the setting


def test_the_arenas_are_limited_to_one(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(heap, "_mallopt", lambda option, value: calls.append((option, value)) or 1)
    monkeypatch.delenv(heap.ARENA_VARIABLE, raising=False)

    assert heap.limit_arenas() is True
    assert calls == [(-8, 1)]  # M_ARENA_MAX


def test_an_arena_count_set_in_the_environment_is_left_to_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(heap, "_mallopt", lambda option, value: calls.append((option, value)) or 1)
    monkeypatch.setenv(heap.ARENA_VARIABLE, "4")

    assert heap.limit_arenas() is False
    assert calls == []


def test_without_mallopt_the_arenas_are_glibcs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_mallopt", None)
    monkeypatch.delenv(heap.ARENA_VARIABLE, raising=False)

    assert heap.limit_arenas() is False

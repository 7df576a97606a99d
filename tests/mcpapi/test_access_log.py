"""The access line's record (mcpapi.access_log): made without Logger.info's stack walk, it must
be the record Logger.info would make, and obey the logger's level, filters and record factory
as any record does (LOG_LEVEL, docs/reference.md#logging)."""

import io
import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator

import pytest

from accounts.callers import ENV_READ_CALLER
from mcpapi import access_log
from mcpapi.outcome import Outcome
from skillsite.logs import JsonFormatter, direct_handler
from tests.support.access_line import ACCESS_FIELDS

OUTCOME = Outcome(200, b"{}", rpc_method="tools/call", tool="skills_get", registry_sha="0" * 40, era="legacy")
# What differs between two records made one after the other, and the line, which only a stack
# walk can name (the record names the first line of the function that writes it).
# ("message" and "asctime" are added by whichever handler formats it first: pytest's, here.)
_OF_THE_MOMENT = {"created", "msecs", "relativeCreated", "lineno", "message", "asctime"}


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def kept() -> Iterator[Kept]:
    handler = Kept()
    logger = logging.getLogger("mcpapi.access")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


def write() -> None:
    access_log.write("0123456789abcdef0123456789abcdef", ENV_READ_CALLER, OUTCOME, 0.42)


def test_the_record_is_the_one_logger_info_makes(kept: Kept) -> None:
    write()
    [record] = kept.records
    made = access_log.logger.makeRecord(
        "mcpapi.access",
        logging.INFO,
        access_log.__file__,
        0,
        "%s %s %s %s %s %.2fms",
        ("0123456789abcdef0123456789abcdef", "token:env", "tools/call", "skills_get", 200, 0.42),
        None,
        func="write",
        extra=dict(ACCESS_FIELDS),
    )
    assert [key for key in vars(record) if key not in _OF_THE_MOMENT] == [
        key for key in vars(made) if key not in _OF_THE_MOMENT
    ]
    assert {key: value for key, value in vars(record).items() if key not in _OF_THE_MOMENT} == {
        key: value for key, value in vars(made).items() if key not in _OF_THE_MOMENT
    }
    assert record.lineno == access_log.write.__code__.co_firstlineno
    assert (
        record.getMessage() == "0123456789abcdef0123456789abcdef token:env tools/call skills_get 200 0.42ms"
    )


def test_a_level_above_info_writes_no_line(kept: Kept) -> None:
    logging.getLogger("mcpapi.access").setLevel(logging.WARNING)
    write()
    access_log.write_page("0123456789abcdef0123456789abcdef", "/healthz", 503, 1.0)
    assert kept.records == []


def test_logging_disable_writes_no_line(kept: Kept) -> None:
    logging.disable(logging.INFO)
    try:
        write()
    finally:
        logging.disable(logging.NOTSET)
    assert kept.records == []


def test_the_loggers_filters_see_the_record(kept: Kept) -> None:
    logger = logging.getLogger("mcpapi.access")

    def only_errors(record: logging.LogRecord) -> bool:
        return record.status >= 400  # type: ignore[attr-defined, no-any-return]

    logger.addFilter(only_errors)
    try:
        write()
        access_log.write_page("0123456789abcdef0123456789abcdef", "/healthz", 503, 1.0)
    finally:
        logger.removeFilter(only_errors)
    [record] = kept.records
    assert record.path == "/healthz" and record.funcName == "write_page"  # type: ignore[attr-defined]


def test_a_record_factory_in_place_makes_the_record(kept: Kept) -> None:
    standard = logging.getLogRecordFactory()

    def tagged(*args: object, **kwargs: object) -> logging.LogRecord:
        record = standard(*args, **kwargs)
        record.host = "registry-1"
        return record

    logging.setLogRecordFactory(tagged)
    try:
        write()
    finally:
        logging.setLogRecordFactory(standard)
    [record] = kept.records
    assert record.host == "registry-1"  # type: ignore[attr-defined]


def test_a_fresh_request_id_is_a_random_uuid4_in_hex() -> None:
    ids = [access_log.fresh_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for fresh in ids:
        assert re.fullmatch(r"[0-9a-f]{32}", fresh)
        parsed = uuid.UUID(hex=fresh)
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122 and parsed.hex == fresh
    # Every other digit is random: each position takes many values over 2,000 ids.
    for position in set(range(32)) - {12, 16}:
        assert len({fresh[position] for fresh in ids}) > 8, position
    assert {fresh[16] for fresh in ids} == set("89ab")


# --- The line written straight to the stream (skillsite.logs.write_direct) ----------------------


@pytest.fixture
def default_logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[logging.StreamHandler, io.StringIO]]:  # type: ignore[type-arg]
    """The registry's default configuration (settings.LOGGING, LOG_FORMAT=json) into a string,
    alone on the root, at a fixed time. pytest adds its capture handlers to the root when the
    test itself starts, after the fixtures: the root's list of handlers is replaced by one that
    keeps only ours."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", OnlyOurs([handler]))
    monkeypatch.setattr(root, "level", logging.INFO)
    monkeypatch.setattr(time, "time", lambda: 1764615600.1234567)
    logging.getLogger("mcpapi.access").manager._clear_cache()
    yield handler, stream
    logging.getLogger("mcpapi.access").manager._clear_cache()


class OnlyOurs(list):  # type: ignore[type-arg]
    """A root's handlers to which pytest's LogCaptureHandler is never added."""

    def append(self, handler: logging.Handler) -> None:
        if type(handler).__name__ != "LogCaptureHandler":
            super().append(handler)


def lines_both_ways(stream: io.StringIO, handler: logging.StreamHandler) -> tuple[str, str]:  # type: ignore[type-arg]
    """An access line and a page line written straight, then the same through the record (a
    filter that lets every record through turns the straight way off)."""
    assert direct_handler(access_log.logger) is handler
    write()
    access_log.write_page("0123456789abcdef0123456789abcdef", "/healthz", 503, 1.0)
    direct = stream.getvalue()
    stream.truncate(0), stream.seek(0)
    handler.addFilter(lambda record: True)
    try:
        assert direct_handler(access_log.logger) is None
        write()
        access_log.write_page("0123456789abcdef0123456789abcdef", "/healthz", 503, 1.0)
    finally:
        handler.filters.clear()
    return direct, stream.getvalue()


def test_the_default_configuration_writes_the_records_line_byte_for_byte(
    default_logging: tuple[logging.StreamHandler, io.StringIO],  # type: ignore[type-arg]
) -> None:
    handler, stream = default_logging
    direct, recorded = lines_both_ways(stream, handler)
    assert direct == recorded
    access, page = direct.splitlines()
    assert json.loads(access) == {
        "time": "2025-12-01T19:00:00.123+00:00",
        "level": "INFO",
        "logger": "mcpapi.access",
        "message": "0123456789abcdef0123456789abcdef token:env tools/call skills_get 200 0.42ms",
        **ACCESS_FIELDS,
    }
    assert json.loads(page)["path"] == "/healthz" and direct.endswith("\n")


def test_a_name_that_needs_escaping_gives_the_same_line_both_ways(
    default_logging: tuple[logging.StreamHandler, io.StringIO],  # type: ignore[type-arg]
) -> None:
    handler, stream = default_logging
    odd = Outcome(400, b"{}", rpc_method="naïve\ud800\nmethod", tool=None, rpc_error=-32601, era="legacy")
    access_log.write("0123456789abcdef0123456789abcdef", None, odd, 12345.67)
    direct = stream.getvalue()
    stream.truncate(0), stream.seek(0)
    handler.addFilter(lambda record: True)
    access_log.write("0123456789abcdef0123456789abcdef", None, odd, 12345.67)
    assert direct == stream.getvalue() and direct.count("\n") == 1


def _logger_filter(handler: logging.Handler) -> Callable[[], None]:
    access_log.logger.addFilter(lambda record: True)
    return access_log.logger.filters.clear


def _own_handler(handler: logging.Handler) -> Callable[[], None]:
    extra = logging.NullHandler()
    access_log.logger.addHandler(extra)
    return lambda: access_log.logger.removeHandler(extra)


def _not_propagating(handler: logging.Handler) -> Callable[[], None]:
    logging.getLogger("mcpapi").propagate = False
    return lambda: setattr(logging.getLogger("mcpapi"), "propagate", True)


def _plain_format(handler: logging.Handler) -> Callable[[], None]:
    formatter = handler.formatter
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    return lambda: handler.setFormatter(formatter)


def _second_handler(handler: logging.Handler) -> Callable[[], None]:
    logging.getLogger().handlers.append(logging.NullHandler())
    return logging.getLogger().handlers.pop


def _record_factory(handler: logging.Handler) -> Callable[[], None]:
    standard = logging.getLogRecordFactory()
    logging.setLogRecordFactory(lambda *args, **kwargs: standard(*args, **kwargs))
    return lambda: logging.setLogRecordFactory(standard)


def _handler_level(handler: logging.Handler) -> Callable[[], None]:
    handler.setLevel(logging.WARNING)
    return lambda: handler.setLevel(logging.NOTSET)


def _disabled(handler: logging.Handler) -> Callable[[], None]:
    access_log.logger.disabled = True
    return lambda: setattr(access_log.logger, "disabled", False)


def _subclassed(handler: logging.Handler) -> Callable[[], None]:
    class Tagged(logging.StreamHandler):  # type: ignore[type-arg]
        pass

    handler.__class__ = Tagged
    return lambda: setattr(handler, "__class__", logging.StreamHandler)


@pytest.mark.parametrize(
    "change",
    [
        _logger_filter,
        _own_handler,
        _not_propagating,
        _plain_format,
        _second_handler,
        _record_factory,
        _handler_level,
        _disabled,
        _subclassed,
    ],
)
def test_any_other_configuration_goes_through_the_record(
    default_logging: tuple[logging.StreamHandler, io.StringIO],  # type: ignore[type-arg]
    change: Callable[[logging.Handler], Callable[[], None]],
) -> None:
    handler, _ = default_logging
    undo = change(handler)
    try:
        assert direct_handler(access_log.logger) is None
    finally:
        undo()
    assert direct_handler(access_log.logger) is handler


def test_a_level_above_info_or_logging_disable_silences_the_straight_line(
    default_logging: tuple[logging.StreamHandler, io.StringIO],  # type: ignore[type-arg]
) -> None:
    _, stream = default_logging
    logging.getLogger().setLevel(logging.WARNING)  # LOG_LEVEL=WARNING
    access_log.logger.manager._clear_cache()
    write()
    logging.getLogger().setLevel(logging.INFO)
    access_log.logger.manager._clear_cache()
    logging.disable(logging.INFO)
    try:
        write()
    finally:
        logging.disable(logging.NOTSET)
    assert stream.getvalue() == ""
    write()
    assert stream.getvalue().count("\n") == 1


def test_a_failed_write_is_the_handlers_error_with_the_record(
    default_logging: tuple[logging.StreamHandler, io.StringIO],  # type: ignore[type-arg]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handler, _ = default_logging

    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError("disk full")

    handler.setStream(Broken())
    errors: list[logging.LogRecord] = []
    monkeypatch.setattr(handler, "handleError", errors.append)
    write()
    [record] = errors
    assert record.funcName == "write" and record.request_id == "0123456789abcdef0123456789abcdef"  # type: ignore[attr-defined]

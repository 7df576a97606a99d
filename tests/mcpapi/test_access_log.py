"""The access line's record (mcpapi.access_log): made without Logger.info's stack walk, it must
be the record Logger.info would make, and obey the logger's level, filters and record factory
as any record does (LOG_LEVEL, docs/reference.md#logging)."""

import logging
import re
import uuid
from collections.abc import Iterator

import pytest

from accounts.callers import ENV_READ_CALLER
from mcpapi import access_log
from mcpapi.outcome import Outcome
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

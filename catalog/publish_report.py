"""`manage.py publish` for a person (docs/reference.md#commands): publish, then the lines to
print, with the publish's JSON log line held back unless asked for.

    published_lines(path, rev, rollback=..., switch_repository=..., verbosity=...) -> list[str]
        The outcome's summary and, when the commit was already active, the note on skills
        the working tree holds but no commit does. Raises PublishError as publish() does.
"""

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

from catalog.publishing import Outcome, publish
from catalog.publishing import logger as publish_logger
from catalog.uncommitted import uncommitted_skills

# At -v 2 and above the command also writes the publish's JSON log line (timings, counts).
LOG_VERBOSITY = 2


def published_lines(
    path: str | os.PathLike[str], rev: str, *, rollback: bool, switch_repository: bool, verbosity: int
) -> list[str]:
    with _log_line_only_at(verbosity):
        result = publish(path, rev, rollback=rollback, switch_repository=switch_repository)
    lines = [result.summary()]
    if result.outcome is Outcome.ALREADY_ACTIVE:
        pending = uncommitted_skills(path, result.sha)
        if pending is not None:
            lines.append(pending.note())
    return lines


@contextmanager
def _log_line_only_at(verbosity: int) -> Iterator[None]:
    """The JSON log line is for machines (it goes wherever LOGGING sends it, stderr by
    default): between a person's human lines it is noise, so only -v 2 (or LOG_LEVEL=DEBUG)
    asks for it."""
    if verbosity >= LOG_VERBOSITY or settings.LOG_LEVEL == "DEBUG":
        yield
        return
    previous = publish_logger.level
    publish_logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        publish_logger.setLevel(previous)

"""Named points of a publish's store phase where a crash test can stop the process.

Off unless the PUBLISH_PAUSE_AT setting (SKILLS_PUBLISH_PAUSE_AT, tests only) names the
point: then the process prints PAUSE_MARKER + the name to stderr and sleeps
PUBLISH_PAUSE_SECONDS there, inside the publish transaction, for the test to kill it.
"""

import sys
import time

from django.conf import settings

PAUSE_MARKER = "SKILLS_PUBLISH_PAUSED_AT="


def reached(name: str) -> None:
    """Called at "blobs" (blobs written), "skills" (versions, the snapshot and its skills
    written) and "activate" (just before the active flag moves)."""
    if settings.PUBLISH_PAUSE_AT != name:
        return
    print(f"{PAUSE_MARKER}{name}", file=sys.stderr, flush=True)
    time.sleep(settings.PUBLISH_PAUSE_SECONDS)

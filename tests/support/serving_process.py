"""A Python script run in a fresh process set up as a serving worker's (the production settings,
an in-memory SQLite database, the cache `cache_url` names; none of the test run's DJANGO_ or
CACHE_ variables), for tests of what such a process loads and connects at start-up."""

import json
import os
import subprocess
import sys
from typing import Any

from tests.support.project import PROJECT_DIR


def serving_process_json(script: str, cache_url: str) -> Any:
    """What `script` prints as JSON on its stdout; the test fails with its stderr if it fails."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "CACHE_"))}
    env.update(DJANGO_SETTINGS_MODULE="skillsite.settings", DJANGO_SECRET_KEY="test-serving-process-key")
    env.update(DATABASE_URL="sqlite:///:memory:", CACHE_URL=cache_url)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)

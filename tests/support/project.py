"""Where the project is, and the programs the tests, the benchmark and the conformance run start."""

import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
MANAGE = str(PROJECT_DIR / "manage.py")
# The gunicorn of the interpreter running the tests (the project's .venv).
GUNICORN = str(Path(sys.executable).parent / "gunicorn")

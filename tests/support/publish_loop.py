"""Publish commits back and forth from one process: `manage.py publish <sha> --rollback`,
in turn, N times (the publish-under-load test runs it next to gunicorn).

    python -m tests.support.publish_loop --repo PATH --times 20 --pause 0.2 SHA1 SHA2

One process, so the test spends its time publishing rather than starting Django 20
times; every publish goes through the management command all the same. Prints the
command's own line per publish; exits non-zero at the first failure.
"""

import argparse
import io
import os
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--times", type=int, default=20)
    parser.add_argument("--pause", type=float, default=0.2)
    parser.add_argument("shas", nargs="+")
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillsite.settings")
    import django

    django.setup()
    from django.core.management import call_command

    for turn in range(args.times):
        sha = args.shas[turn % len(args.shas)]
        out = io.StringIO()
        call_command("publish", sha, "--rollback", "--repo", args.repo, stdout=out)
        print(out.getvalue().strip(), flush=True)
        time.sleep(args.pause)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Semantic Versioning 2.0.0 helper for release work. Read-only: it never writes files.

Usage:
    bump_version.py next VERSION {major,minor,patch,prerelease} [--pre LABEL]
        Print the next version.
          next 1.4.2 minor              -> 1.5.0
          next 1.4.2 major --pre rc     -> 2.0.0-rc.1
          next 2.0.0-rc.1 prerelease    -> 2.0.0-rc.2
          next 2.0.0-rc.2 major         -> 2.0.0   (finalises the pre-release)
    bump_version.py compare A B
        Print -1, 0 or 1 (semver precedence; build metadata is ignored).
    bump_version.py latest [--prefix v] [--stable]
        Print the highest semver tag in the current git repository
        (runs `git tag --list`; nothing else). Exit 1 if there is none.
    bump_version.py check-newer VERSION [--prefix v]
        Exit 0 if VERSION is greater than every existing semver tag, else 1.
"""

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass

SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$",
    re.ASCII,
)


@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    pre: tuple[str, ...] = ()
    build: str = ""

    @classmethod
    def parse(cls, text: str) -> "Version":
        match = SEMVER.fullmatch(text)
        if not match:
            raise ValueError(f"not a semantic version: {text!r}")
        major, minor, patch, pre, build = match.groups()
        return cls(int(major), int(minor), int(patch), tuple(pre.split(".")) if pre else (), build or "")

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(self.pre)
        if self.build:
            text += "+" + self.build
        return text

    def key(self) -> tuple:
        # A release sorts after all of its pre-releases; numeric identifiers sort
        # numerically and before alphanumeric ones (SemVer 2.0.0, section 11).
        pre_key = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.pre)
        return (self.major, self.minor, self.patch, 0 if self.pre else 1, pre_key)


def compare(a: Version, b: Version) -> int:
    return (a.key() > b.key()) - (a.key() < b.key())


def bump(version: Version, part: str, pre_label: str | None) -> Version:
    v = version
    if part == "prerelease":
        if not v.pre:
            return Version(v.major, v.minor, v.patch + 1, (pre_label or "rc", "1"))
        label = pre_label or v.pre[0]
        if label == v.pre[0] and v.pre[-1].isdigit():
            return Version(v.major, v.minor, v.patch, (*v.pre[:-1], str(int(v.pre[-1]) + 1)))
        return Version(v.major, v.minor, v.patch, (label, "1"))
    if v.pre and pre_label:
        raise ValueError("use the 'prerelease' part to advance an existing pre-release")
    if part == "major":
        # 2.0.0-rc.2 -> 2.0.0 finalises the pre-release; 1.4.2 -> 2.0.0 bumps.
        finalises = bool(v.pre) and v.minor == 0 and v.patch == 0
        final = Version(v.major, 0, 0) if finalises else Version(v.major + 1, 0, 0)
    elif part == "minor":
        finalises = bool(v.pre) and v.patch == 0
        final = Version(v.major, v.minor, 0) if finalises else Version(v.major, v.minor + 1, 0)
    elif part == "patch":
        final = Version(v.major, v.minor, v.patch if v.pre else v.patch + 1)
    else:
        raise ValueError(f"unknown part: {part}")
    if pre_label:
        return Version(final.major, final.minor, final.patch, (pre_label, "1"))
    return final


def semver_tags(prefix: str) -> list[Version]:
    output = subprocess.run(
        ["git", "tag", "--list", f"{prefix}*"], check=True, capture_output=True, text=True
    ).stdout
    versions = []
    for tag in output.split():
        try:
            versions.append(Version.parse(tag[len(prefix) :]))
        except ValueError:
            continue  # not a version tag
    return sorted(versions, key=Version.key)


def main(argv: list[str]) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_next = sub.add_parser("next")
    p_next.add_argument("version")
    p_next.add_argument("part", choices=["major", "minor", "patch", "prerelease"])
    p_next.add_argument("--pre", metavar="LABEL", help="pre-release label, e.g. rc, beta")
    p_cmp = sub.add_parser("compare")
    p_cmp.add_argument("a")
    p_cmp.add_argument("b")
    p_latest = sub.add_parser("latest")
    p_latest.add_argument("--prefix", default="v")
    p_latest.add_argument("--stable", action="store_true", help="ignore pre-releases")
    p_newer = sub.add_parser("check-newer")
    p_newer.add_argument("version")
    p_newer.add_argument("--prefix", default="v")
    args = parser.parse_args(argv)

    try:
        if args.command == "next":
            if args.pre is not None and not re.fullmatch(r"[0-9A-Za-z-]+", args.pre):
                raise ValueError(f"invalid pre-release label: {args.pre!r}")
            print(bump(Version.parse(args.version), args.part, args.pre))
        elif args.command == "compare":
            print(compare(Version.parse(args.a), Version.parse(args.b)))
        elif args.command == "latest":
            tags = [v for v in semver_tags(args.prefix) if not (args.stable and v.pre)]
            if not tags:
                print("no semver tags found", file=sys.stderr)
                return 1
            print(f"{args.prefix}{tags[-1]}")
        elif args.command == "check-newer":
            wanted = Version.parse(args.version)
            tags = semver_tags(args.prefix)
            if tags and compare(wanted, tags[-1]) <= 0:
                print(f"{wanted} is not greater than the latest tag {args.prefix}{tags[-1]}", file=sys.stderr)
                return 1
            print(f"{wanted} is newer than every existing tag")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"error: git failed: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env bash
# Pre-flight checks before tagging a release. Read-only: it never changes the
# repository, the index, tags or remotes. It reads git state and the changelog,
# and (unless OFFLINE=1) asks the remote which tags exist via `git ls-remote`.
#
# Usage: check_release.sh VERSION [CHANGELOG]
#   VERSION    semver without the tag prefix, e.g. 1.5.0 or 2.0.0-rc.1
#   CHANGELOG  path to the changelog (default: CHANGELOG.md)
# Environment:
#   RELEASE_BRANCH  branch releases are cut from (default: main, else master)
#   TAG_PREFIX      tag prefix (default: v)
#   REMOTE          remote to compare with (default: origin)
#   OFFLINE=1       skip the remote tag lookup
#
# Exit status: 0 all checks passed, 1 a check failed, 2 usage error.
# Run `git fetch --tags <remote>` first so the upstream comparison is current.

set -uo pipefail

usage() { sed -n '6,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 1 ] && [ $# -le 2 ] || usage
version=$1
changelog=${2:-CHANGELOG.md}
prefix=${TAG_PREFIX-v}
remote=${REMOTE:-origin}
tag="${prefix}${version}"
failures=0

pass() { printf 'ok    %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; failures=$((failures + 1)); }
warn() { printf 'warn  %s\n' "$1"; }

semver_re='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'
if [[ $version =~ $semver_re ]]; then
    pass "version $version is a semantic version"
else
    fail "version '$version' is not a semantic version (expected e.g. 1.5.0 or 2.0.0-rc.1)"
    exit 1
fi

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    fail "not inside a git work tree"
    exit 1
fi
cd "$(git rev-parse --show-toplevel)" || exit 1

# 1. Branch
branch=$(git symbolic-ref --quiet --short HEAD) || branch=""
expected=${RELEASE_BRANCH:-}
if [ -z "$expected" ]; then
    if git show-ref --verify --quiet refs/heads/main; then expected=main; else expected=master; fi
fi
if [ -z "$branch" ]; then
    fail "HEAD is detached; check out $expected"
elif [ "$branch" = "$expected" ]; then
    pass "on release branch $branch"
else
    fail "on branch $branch, expected $expected (set RELEASE_BRANCH to override)"
fi

# 2. Clean working tree (staged, unstaged and untracked files)
dirty=$(git status --porcelain --untracked-files=normal)
if [ -z "$dirty" ]; then
    pass "working tree is clean"
else
    fail "working tree has uncommitted or untracked changes:"
    printf '%s\n' "$dirty" | sed 's/^/        /' | head -20
fi

# 3. In sync with upstream (as of the last fetch)
if upstream=$(git rev-parse --abbrev-ref --symbolic-full-name '@{upstream}' 2>/dev/null); then
    read -r behind ahead < <(git rev-list --left-right --count "${upstream}...HEAD")
    if [ "$behind" -eq 0 ] && [ "$ahead" -eq 0 ]; then
        pass "in sync with $upstream (as of last fetch)"
    else
        fail "$behind commit(s) behind and $ahead ahead of $upstream; pull/push first"
    fi
else
    warn "no upstream configured for ${branch:-HEAD}; cannot compare with the remote branch"
fi

# 4. Tag does not exist yet, locally or on the remote
if git rev-parse --quiet --verify "refs/tags/$tag" >/dev/null; then
    fail "tag $tag already exists locally"
else
    pass "tag $tag does not exist locally"
fi
if [ "${OFFLINE:-0}" = "1" ]; then
    warn "OFFLINE=1: remote tags not checked"
elif git remote get-url "$remote" >/dev/null 2>&1; then
    git ls-remote --exit-code --tags "$remote" "refs/tags/$tag" >/dev/null 2>&1
    case $? in
        0) fail "tag $tag already exists on $remote" ;;
        2) pass "tag $tag does not exist on $remote" ;;
        *) warn "could not query $remote for tags (network or auth problem)" ;;
    esac
else
    warn "no remote named $remote; remote tags not checked"
fi

# 5. Version is greater than every existing tag (needs python3 and bump_version.py)
helper="$(dirname "$0")/bump_version.py"
if command -v python3 >/dev/null 2>&1 && [ -f "$helper" ]; then
    if msg=$(python3 "$helper" check-newer "$version" --prefix "$prefix" 2>&1); then
        pass "$msg"
    else
        fail "$msg"
    fi
else
    warn "python3 or bump_version.py not available; version ordering not checked"
fi

# 6. Changelog has a dated section for this version
if [ ! -f "$changelog" ]; then
    fail "changelog $changelog not found"
else
    # Matches "## [1.5.0] - 2024-05-01", "## 1.5.0 (2024-05-01)", "## v1.5.0" ...
    escaped=$(printf '%s' "$version" | sed 's/[.+]/\\&/g')
    heading=$(grep -En "^#{1,3} \[?v?${escaped}\]?([^0-9A-Za-z.+-]|$)" "$changelog" | head -1)
    if [ -z "$heading" ]; then
        fail "no heading for $version in $changelog"
    else
        pass "changelog heading found: ${heading#*:}"
        line=${heading%%:*}
        # The section body: lines after the heading up to the next heading of any level <= 2.
        body=$(tail -n "+$((line + 1))" "$changelog" | sed '/^##\{0,1\} /,$d' | grep -Ev '^[[:space:]]*$' | grep -Ev '^###')
        if [ -z "$body" ]; then
            fail "the $version section of $changelog is empty"
        fi
        if ! printf '%s\n' "$heading" | grep -Eq '[0-9]{4}-[0-9]{2}-[0-9]{2}'; then
            warn "the $version heading has no YYYY-MM-DD release date"
        fi
    fi
    if grep -Eiq '^#{1,3} \[?unreleased\]?' "$changelog"; then
        unreleased=$(sed -n '/^#\{1,3\} \[\{0,1\}[Uu]nreleased/,/^## /p' "$changelog" | sed '1d;$d' \
            | grep -Ev '^[[:space:]]*$' | grep -Ev '^###' || true)
        if [ -n "$unreleased" ]; then
            warn "the Unreleased section still has entries; move them under $version?"
        fi
    fi
fi

echo
if [ "$failures" -eq 0 ]; then
    echo "All release checks passed for $tag."
    exit 0
fi
echo "$failures check(s) failed; do not tag $tag yet."
exit 1

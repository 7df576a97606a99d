#!/usr/bin/env bash
# Find where a leaked value appears in a git repository: every commit (on any
# branch, tag, stash or reflog entry) whose diff adds or removes it or whose
# message contains it, the branches and tags that contain those commits, and
# the files in the current working tree that contain it.
#
# Read-only: it runs `git log`, `git grep`, `git branch`, `git tag` and awk.
# It never prints the value itself.
#
# The value is read from standard input (hidden when typed at a terminal), not
# from the command line, so it does not land in shell history or `ps` output.
# It is passed to awk through the environment of this script's own processes.
#
# Usage (inside the repository):
#   bash find_leaked_secret.sh            # then paste the value and press Enter
#   bash find_leaked_secret.sh < file     # first line of file is the value
#
# Exit status: 0 not found, 1 found, 2 usage error.

set -uo pipefail

if ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "error: run this inside a git repository" >&2
    exit 2
fi

if [ -t 0 ]; then
    printf 'Paste the leaked value (input hidden), then press Enter: ' >&2
    IFS= read -rs value
    printf '\n' >&2
else
    IFS= read -r value || true
fi
value=${value%$'\r'}
if [ "${#value}" -lt 8 ]; then
    echo "error: value shorter than 8 characters; it would match too much to be useful" >&2
    exit 2
fi
export LEAK_NEEDLE="$value"
unset value

found=0

echo "== Commits (all refs and reflogs; merge commits' own diffs are not scanned) =="
# %x01 marks the start of each commit; the message follows, then the patch.
hits=$(
    git log --all --reflog --no-color --no-ext-diff --text -p \
        --format='%x01%H %ad%n%B' --date=short 2>/dev/null |
        awk '
        BEGIN { needle = ENVIRON["LEAK_NEEDLE"]; mark = sprintf("%c", 1) }
        substr($0, 1, 1) == mark { commit = substr($1, 2); date = $2; state = "message"; file = ""; next }
        /^diff --git / { state = "header"; file = ""; next }
        state == "header" && /^--- a\// { file = substr($0, 7); sub(/\t$/, "", file); next }
        state == "header" && /^\+\+\+ b\// { file = substr($0, 7); sub(/\t$/, "", file); next }
        state == "header" && /^@@ / { state = "patch"; next }
        state == "header" { next }
        state == "patch" && /^@@ / { next }
        index($0, needle) == 0 { next }
        {
            if (state == "message") { where = "commit message" }
            else if (substr($0, 1, 1) == "+") { where = "added in " file }
            else if (substr($0, 1, 1) == "-") { where = "removed from " file }
            else { next }  # unchanged context line: reported where it was added
            key = commit SUBSEP where
            if (!(key in seen)) { seen[key] = 1; print commit " " date " " where }
        }'
)
if [ -n "$hits" ]; then
    found=1
    printf '%s\n' "$hits"
    echo
    echo "== Refs containing the commits that added it =="
    for commit in $(printf '%s\n' "$hits" | awk '$3 == "added" || $3 == "commit" { print $1 }' | sort -u); do
        branches=$(git branch --all --contains "$commit" --format='%(refname:short)' 2>/dev/null | tr '\n' ' ')
        tags=$(git tag --contains "$commit" 2>/dev/null | tr '\n' ' ')
        printf '%s\n  branches: %s\n  tags: %s\n' "$commit" "${branches:-(none: reflog or stash only)}" "${tags:-(none)}"
    done
else
    echo "(no commits found)"
fi

echo
echo "== Files in the working tree (tracked and untracked, not ignored) =="
if files=$(printf '%s\n' "$LEAK_NEEDLE" | git grep --untracked -I -F -l -f - 2>/dev/null) && [ -n "$files" ]; then
    found=1
    printf '%s\n' "$files"
else
    echo "(none)"
fi
echo "Ignored files (.env and the like) are not searched; check them and build outputs separately."

echo
if [ "$found" -eq 1 ]; then
    echo "FOUND. Rotate the credential first; history rewriting comes after."
    exit 1
fi
echo "Not found in this clone. Other clones, forks, CI logs and images may still hold it."
exit 0

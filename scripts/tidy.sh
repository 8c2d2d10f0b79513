#!/usr/bin/env bash
# clang-tidy (.clang-tidy) on the .cc files changed since a base, failing on any finding in them
# or in the headers they include from include/, src/ or tests/ (HeaderFilterRegex). Checking
# only what changed keeps the gate short; a header counts through its own .cc.
#
# Usage: scripts/tidy.sh [file.cc ...]  (the files given instead of the changed ones)
#
# Base: TRIBUTARY_TIDY_BASE when set; else the merge-base with origin/main when that ref exists
# and the merge-base is not HEAD itself; else HEAD~1. Uncommitted and untracked files count as
# changed. Compile commands: build/release/compile_commands.json (configured when missing);
# files it does not compile (the fuzz harnesses, built only with clang) are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release

if [ -n "${TRIBUTARY_TIDY_BASE:-}" ]; then
  base=$TRIBUTARY_TIDY_BASE
elif git rev-parse --verify -q origin/main >/dev/null &&
  [ "$(git merge-base origin/main HEAD)" != "$(git rev-parse HEAD)" ]; then
  base=$(git merge-base origin/main HEAD)
elif git rev-parse --verify -q HEAD~1 >/dev/null; then
  base=HEAD~1
else
  base=$(git hash-object -t tree /dev/null)  # a single commit: everything is new
fi

if [ ! -f "$build/compile_commands.json" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi

# Changed files that still exist: committed since the base, uncommitted, and untracked.
if [ $# -gt 0 ]; then
  changed=$(printf '%s\n' "$@")
else
  changed=$(
    {
      git diff --name-only --diff-filter=d "$base" -- '*.cc' '*.h'
      git ls-files --others --exclude-standard -- '*.cc' '*.h'
    } | sort -u
  )
fi
files=()
for path in $changed; do
  # A header is checked through the .cc of the same name (for a public header, the one in
  # src/api/ or src/common/).
  case "$path" in
    include/tributary/*.h)
      name=$(basename "$path" .h)
      path=src/api/$name.cc
      [ -f "$path" ] || path=src/common/$name.cc
      ;;
    *.h)
      # Else the first .cc that includes it: a header without a .cc of its own (a template
      # library, a test fixture) is still checked.
      header=$path
      path=${header%.h}.cc
      if [ ! -f "$path" ]; then
        include=${header#src/}
        include=${include#tests/}
        path=$(git grep -l -F "#include \"$include\"" -- 'src/*.cc' 'tests/*.cc' | head -n 1 || true)
      fi
      ;;
  esac
  [ -f "$path" ] || continue
  if ! grep -q "\"file\": \"$PWD/$path\"" "$build/compile_commands.json"; then
    echo "tidy: skipping $path (not in $build/compile_commands.json)"
    continue
  fi
  files+=("$path")
done
mapfile -t files < <(printf '%s\n' "${files[@]+"${files[@]}"}" | sed '/^$/d' | sort -u)

if [ $# -gt 0 ]; then
  echo "tidy: ${#files[@]} file(s)"
else
  echo "tidy: ${#files[@]} changed file(s) since $(git rev-parse --short "$base" 2>/dev/null || echo "$base")"
fi
# One clang-tidy per core at low priority: a test file takes a minute or more (the gtest and
# library headers it parses), and a file's findings print together, as each process exits.
# TRIBUTARY_TIDY_JOBS overrides the count (about 1 GiB of memory each).
jobs=${TRIBUTARY_TIDY_JOBS:-$(nproc)}
status=0
if [ ${#files[@]} -gt 0 ]; then
  printf '%s\0' "${files[@]}" |
    xargs -0 -n 1 -P "$jobs" sh -c '
      out=$(nice -n 19 clang-tidy -p "$0" --quiet --warnings-as-errors="*" "$1" 2>&1) && exit 0
      printf "%s\ntidy: findings in %s or the headers it includes\n" "$out" "$1"
      exit 1' "$build" || status=1
fi
[ $status -eq 0 ] && echo "tidy: no findings"
exit $status

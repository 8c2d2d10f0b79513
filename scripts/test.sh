#!/usr/bin/env bash
# Everything `make test` checks, in order: structure, formatting and clang-tidy on the changed
# files; the release build (g++, -Werror) of what `make demo` and `make bench` build, the demo
# run, and the tests whose bounds are the release build's; the sanitizer build (clang, -Werror,
# ASan + UBSan, src/ as a unity build) running every test; each fuzz harness for a bounded time.
#
# Every test runs once, in the sanitizer tree: compiling the tests twice (g++ -O1 and clang
# with sanitizers) and running them twice was 45 of the 53 minutes a fresh clone took. `make
# check` is the g++ lane that compiles and runs the unit tests in the release tree.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
fuzz_seconds=${TRIBUTARY_FUZZ_SECONDS:-15}

echo "== structure checks"
./scripts/check_layers.sh
echo "== formatting (clang-format, .clang-format)"
git ls-files '*.h' '*.cc' | xargs clang-format --dry-run -Werror
echo "== clang-tidy on the changed files (.clang-tidy; scripts/tidy.sh says which base)"
./scripts/tidy.sh

echo "== release build (g++, -Werror): the CLI, examples, benchmarks, release-bound tests"
# A unity build, as the sanitizer tree: 3.7 minutes instead of 8.5 on two cores (each library's
# headers parsed once), and g++ sees the unity units' clashes too. For incremental work,
# configure a tree of your own with -DTRIBUTARY_UNITY_BUILD=OFF (`make check` keeps the
# setting a tree has).
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRIBUTARY_WERROR=ON \
  -DTRIBUTARY_UNITY_BUILD=ON >/dev/null
cmake --build build/release -j "$jobs" --target tributary kafka-test-broker quickstart \
  auto_loader_pipeline benchmarks release_bound_tests
echo "== the demo (release build)"
rm -rf build/release/demo-run
./build/release/tools/tributary/tributary demo --dir build/release/demo-run >/dev/null
# The tests whose bounds hold only without sanitizers run beside the sanitizer build: one of
# them (twenty million keys of state) takes minutes on one core.
echo "== ctest (release, in the background): the tests labelled release"
release_log=build/release/release-tests.log
ctest --test-dir build/release --output-on-failure -L release >"$release_log" 2>&1 &
release_tests=$!
# A failure below ends the script; the background ctest goes with it.
trap 'kill "$release_tests" 2>/dev/null || true' EXIT

echo "== sanitizer build (clang, address+undefined) and fuzz harnesses"
# -O1 with line tables only: a third less compile time than -O2 -g, and ASan's reports still
# name file and line (full debug info is what a developer's own build is for). Test code is at
# -O0 in this tree (tests/CMakeLists.txt).
# TRIBUTARY_UNITY_BUILD: this tree compiles each src/ library as one unity translation unit,
# which is the unity-build gate of `make test` (two files' private helpers, constants or macros
# of the same name fail it) and compiles the libraries faster besides.
CXX=clang++ cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
  -DTRIBUTARY_WERROR=ON -DTRIBUTARY_SANITIZE=address,undefined -DTRIBUTARY_UNITY_BUILD=ON \
  -DTRIBUTARY_BUILD_BENCH=OFF -DTRIBUTARY_BUILD_FUZZ=ON >/dev/null
cmake --build build/asan -j "$jobs"
echo "== ctest (sanitizers): unit sql conformance interop slow"
# A 64 MiB quarantine (ASan's default is 256) and 10-frame allocation stacks (default 30): the
# suite starts thousands of sanitizer-built processes and 40% of its CPU time is the kernel's,
# much of it faulting in pages the allocator touches (a crash test: 14.4 s with the defaults,
# 13.0 s with a smaller quarantine and shorter stacks). Freed memory still waits in quarantine
# long enough for the tests' use-after-free paths, and reports still name the callers.
ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=64:malloc_context_size=10 \
  UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build/asan --output-on-failure -j "$jobs"
echo "== ctest (release): the tests labelled release"
if ! wait "$release_tests"; then
  cat "$release_log"
  exit 1
fi
tail -n 3 "$release_log"

# Each harness runs for its bounded time, $jobs at a time; any failure fails the run (xargs).
# A single allocation above 256 MiB (an input trusted for a size it declares) or RSS above 2 GiB
# fails a harness; libFuzzer's default malloc limit (2 GiB) lets a 2^31-1-byte page through.
fuzz_one() {
  local harness=$1 name corpus log
  name=$(basename "$harness")
  corpus=build/asan/fuzz-corpus/$name
  log=build/asan/fuzz-logs/$name.log
  mkdir -p "$corpus" build/asan/fuzz-logs
  cp -n tests/fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null || true
  if "$harness" -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 -malloc_limit_mb=256 \
    -print_final_stats=1 "$corpus" >"$log" 2>&1; then
    echo "== fuzzed $name for ${fuzz_seconds}s"
    tail -n 4 "$log"
  else
    echo "== fuzzing $name FAILED"
    tail -n 60 "$log"
    return 1
  fi
}
export -f fuzz_one
export fuzz_seconds
printf '%s\n' build/asan/tests/fuzz/*_fuzz | xargs -P "$jobs" -I{} bash -c 'fuzz_one "$1"' _ {}
echo "== all tests passed"

#!/bin/sh
# The cli_prompt test: the interactive `tributary sql` prompt (--interactive on a pipe, as on a
# terminal) recovers after input the lexer cannot read (an arrow key's escape sequence), a `\`
# command and `help`; `exit` ends it, with 1 when a statement failed (else 0); Ctrl-C (SIGINT)
# at the prompt drops the current input and the prompt goes on, while a statement runs it ends
# the process.
# Usage: cli_prompt_test.sh TRIBUTARY_BINARY
set -eu
tributary=$1
work=$(mktemp -d /tmp/tributary-cli-prompt-XXXXXX)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2> /dev/null || true; rm -rf "$work"' EXIT
fail() {
  echo "cli_prompt: $*"
  echo "--- stdout"; cat "$work/out.txt" || true
  echo "--- stderr"; cat "$work/err.txt" || true
  exit 1
}
expect_in() {
  grep -qF -- "$2" "$1" || fail "$1 lacks: $2"
}

# Escape bytes alone on a line and inside a statement, `\d`, help, then statements that must
# still run; nothing after `exit` runs.
status=0
printf 'SELECT 1 AS a;\n\033[A\033[B\nSELECT 5\033[D AS e;\nSELECT 2 AS b;\n\\d\nhelp\nSELECT 3\n  AS c;\nEXIT\nSELECT 4 AS d;\n' |
  "$tributary" sql --warehouse "$work/wh" --interactive --format json \
    > "$work/out.txt" 2> "$work/err.txt" || status=$?
[ "$status" -eq 1 ] || fail "the prompt exited $status after failed statements, not 1"
for row in '{"a":1}' '{"b":2}' '{"c":3}'; do
  expect_in "$work/out.txt" "$row"
done
expect_in "$work/out.txt" "Commands (at the start of a line)"
expect_in "$work/err.txt" "unexpected character"
expect_in "$work/err.txt" "unknown command '\\d'"
if grep -qF '{"d":4}' "$work/out.txt" || grep -qF '{"e":5}' "$work/out.txt"; then
  fail "a statement after exit or with an escape byte ran"
fi
# The escape byte is shown as ^[, not sent to the terminal.
if grep -q "$(printf '\033')" "$work/err.txt"; then
  fail "an error wrote a raw escape byte"
fi
# quit with a ';' and \q end it too.
printf 'quit;\nSELECT 4 AS d;\n' | "$tributary" sql --warehouse "$work/wh" --interactive \
  --format json > "$work/out.txt" 2> "$work/err.txt" || fail "quit; exited non-zero"
! grep -qF '{"d":4}' "$work/out.txt" || fail "a statement after quit; ran"

# Ctrl-C at a continuation prompt: the half-typed statement is dropped, the shell goes on.
# Polls for the prompt with a deadline of 30 seconds.
wait_for() {
  tries=0
  while [ "$(grep -o -- "$2" "$work/out.txt" | wc -l)" -lt "$3" ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 300 ] || fail "no '$2' (x$3) within 30 s"
    sleep 0.1
  done
}
mkfifo "$work/in"
"$tributary" sql --warehouse "$work/wh" --interactive --format json < "$work/in" \
  > "$work/out.txt" 2> "$work/err.txt" &
pid=$!
exec 3> "$work/in"
printf 'SELECT 1 AS a\n' >&3
wait_for "$work/out.txt" '\.\.> ' 1
kill -INT "$pid"
wait_for "$work/out.txt" 'tributary> ' 2
printf 'SELECT 42 AS x;\nexit\n' >&3
exec 3>&-
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "the prompt exited $status after Ctrl-C"
expect_in "$work/out.txt" '{"x":42}'
if grep -qF '{"a":1}' "$work/out.txt" || [ -s "$work/err.txt" ]; then
  fail "the input before Ctrl-C was not dropped"
fi

# Ctrl-C while a statement runs ends the process, as SIGINT does by default (a statement cannot
# be cancelled). The hang point blocks the statement forever once its commit is published, so
# the signal surely arrives while it runs; a deadline of 30 s fails a shell that survives it.
TRIBUTARY_HANG_AT=delta.after_commit:1 "$tributary" sql --warehouse "$work/wh" --interactive \
  --format json < "$work/in" > "$work/out.txt" 2> "$work/err.txt" &
pid=$!
exec 3> "$work/in"
printf 'CREATE TABLE hung AS SELECT 1 AS a;\n' >&3
tries=0
until [ -f "$work/wh/hung/_delta_log/00000000000000000000.json" ]; do
  tries=$((tries + 1))
  [ "$tries" -lt 300 ] || fail "the statement never reached the hang point within 30 s"
  sleep 0.1
done
kill -INT "$pid"
( sleep 30; kill -9 "$pid" ) > /dev/null 2>&1 &
watchdog=$!
status=0
wait "$pid" || status=$?
pid=
kill "$watchdog" 2> /dev/null || true
exec 3>&-
[ "$status" -eq 130 ] || fail "Ctrl-C during a statement: exit status $status, not 130 (SIGINT)"
echo "cli_prompt: ok"

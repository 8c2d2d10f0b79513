#!/bin/sh
# The cli_shell test: `tributary sql` as a person uses it.
# 1. On a terminal (tmux, 120x40): editing keys (Left, Home, End, inserting), Tab completion of a
#    keyword, a table and a column, Ctrl-C dropping a half-typed statement, a 100-row result cut
#    to 40 rows with a footer, a wide result cut to the terminal's width, .tables, .schema,
#    .mode csv, .timer, history recalled with Up after a restart (HOME a temporary folder),
#    Ctrl-D leaving with 0, and exit status 1 when a statement failed.
# 2. Scripts: dot commands from a pipe, NULL against '' in every format, every row when not
#    interactive, timestamps in the session time zone, -f/pipe/STATEMENTS with --bail (the
#    default) and --no-bail.
# Every wait polls the screen with a deadline (30 s); none is a fixed sleep.
# Usage: cli_shell_test.sh TRIBUTARY_BINARY
set -eu
tributary=$1
case $tributary in /*) ;; *) tributary="$PWD/$tributary" ;; esac  # the shell runs in $work
work=$(mktemp -d /tmp/tributary-cli-shell-XXXXXX)
socket="tributary-shell-$$"
trap 'tmux -L "$socket" kill-server > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
wh="$work/wh"
mkdir -p "$work/home"
fail() {
  echo "cli_shell: $*"
  if tmux -L "$socket" has-session -t shell 2> /dev/null; then
    echo "--- screen"
    tmux -L "$socket" capture-pane -p -t shell -S -200
  fi
  [ ! -f "$work/status" ] || echo "the shell exited with $(cat "$work/status")"
  exit 1
}
expect_in() {
  grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 lacks: $2"; }
}
expect_not_in() {
  if grep -qF -- "$2" "$1"; then cat "$1"; fail "$1 has: $2"; fi
}

# --- 1. The shell on a terminal ----------------------------------------------------------
# The shell runs in a tmux pane; its exit status lands in $work/status when it ends.
start_shell() {
  rm -f "$work/status"
  tmux -L "$socket" new-session -d -s shell -x 120 -y 40 \
    "cd '$work' && HOME='$work/home' TZ=UTC '$tributary' sql --warehouse '$wh'; echo \$? > '$work/status'"
}
screen() {
  { tmux -L "$socket" capture-pane -p -J -t shell -S -1000 2> /dev/null || true; } | sed 's/ *$//'
}
keys() {
  tmux -L "$socket" send-keys -t shell "$@"
}
# Types the text $1 (tmux takes an argument's final ';' for a command separator unless escaped).
type_text() {
  case $1 in
    *\;) tmux -L "$socket" send-keys -t shell -l "${1%?}\\;" ;;
    *) tmux -L "$socket" send-keys -t shell -l "$1" ;;
  esac
}
# Waits until the screen holds the text $1 at least $2 times (default once). The screen's lines
# end without spaces: an empty prompt is 'tributary>'.
wait_screen() {
  tries=0
  while [ "$(screen | grep -cF -- "$1")" -lt "${2:-1}" ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 300 ] || fail "the screen never showed '$1' (x${2:-1}) within 30 s"
    sleep 0.1
  done
}
# Waits until the screen's last line is an empty prompt.
wait_empty_prompt() {
  tries=0
  until [ "$(screen | grep -v '^$' | tail -n 1)" = 'tributary>' ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 300 ] || fail "no empty prompt within 30 s"
    sleep 0.1
  done
}
wait_exit() {
  tries=0
  until [ -s "$work/status" ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 300 ] || fail "the shell did not end within 30 s"
    sleep 0.1
  done
  cat "$work/status"
}

"$tributary" sql --warehouse "$wh" \
  "CREATE TABLE events (device STRING, reading INT) USING DELTA;
   INSERT INTO events VALUES ('a', 1), ('b', 2)"

start_shell
wait_empty_prompt
# Editing: typed without its first letter and its middle digits, which Home, End and Left
# put in place: SELECT 4321 AS x;
type_text 'ELECT 43 AS x;'
keys Home
type_text 'S'
keys End Left Left Left Left Left Left
type_text '21'
keys Enter
wait_screen '| 4321 |'
screen | grep -qF 'tributary> SELECT 4321 AS x;' || fail "the edited line is not SELECT 4321 AS x;"
# Tab completes a keyword (in the case typed), then a table after FROM, then a column.
type_text 'sel'
keys Tab
type_text 'reading FROM ev'
keys Tab
type_text 'WHERE dev'
keys Tab
type_text "= 'b';"
keys Enter
wait_screen "tributary> select reading FROM events WHERE device = 'b';"
wait_screen '|       2 |'
# Ctrl-C drops a statement that is half typed over two lines; the next one works.
type_text "SELECT 'half"
keys Enter
wait_screen '      ...>'
keys C-c
wait_empty_prompt
type_text 'SELECT 7 AS after_interrupt;'
keys Enter
wait_screen '| after_interrupt |'
screen | grep -q 'unterminated' && fail "the statement dropped by Ctrl-C ran"
# A long result shows 40 rows and says so; a wide one fits the 120 columns.
type_text 'SELECT explode(sequence(1, 100)) AS id;'
keys Enter
wait_screen '100 rows (40 shown)'
screen | grep -qF '|  20 |' || fail "row 20 is not shown"
screen | grep -qF '|  81 |' || fail "row 81 is not shown"
screen | grep -qF '|  21 |' && fail "row 21 is shown, past the first 20"
type_text "SELECT 1 AS a, repeat('x', 300) AS wide, 2 AS b;"
keys Enter
wait_screen 'xxx... |'
wait_screen '(values cut to fit 120 columns: .mode line shows them whole)'
[ "$(screen | awk '{ if (length($0) > n) n = length($0) } END { print n }')" -le 120 ] ||
  fail "a line is wider than the terminal"
# Dot commands.
type_text 'CREATE TEMPORARY VIEW recent_view AS SELECT device FROM events;'
keys Enter
type_text '.tables'
keys Enter
wait_screen 'events       recent_view'
type_text '.schema events'
keys Enter
wait_screen 'CREATE TABLE '
wait_screen '  device STRING,'
type_text '.mode csv'
keys Enter
type_text "SELECT 'x' AS s, NULL AS n, '' AS e;"
keys Enter
wait_screen 'x,,""'
type_text '.mode table'
keys Enter
type_text '.timer on'
keys Enter
type_text 'SELECT 1 AS one;'
keys Enter
wait_screen 'Run Time (s): real'
# A failing statement: the shell goes on, and its exit status is 1 at the end.
type_text 'SELECT * FROM missing_table;'
keys Enter
wait_screen 'missing_table' 2
type_text '.exit'
keys Enter
[ "$(wait_exit)" = 1 ] || fail "the shell exited $(cat "$work/status") after a failed statement, not 1"
[ -s "$work/home/.tributary_history" ] || fail "no history in \$HOME/.tributary_history"

# History across a restart: Up recalls the lines of the run before; Ctrl-D leaves with 0.
start_shell
wait_empty_prompt
keys Up
wait_screen 'tributary> .exit'
# Up past the oldest line stays on it: the first line typed in the run before.
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  keys Up
done
wait_screen 'tributary> SELECT 4321 AS x;'
keys Enter
wait_screen '| 4321 |'
keys C-d
[ "$(wait_exit)" = 0 ] || fail "Ctrl-D at the prompt exited $(cat "$work/status"), not 0"

# --- 2. Scripts ----------------------------------------------------------------------------
# Dot commands from a pipe; NULL against '' in each format.
printf ".mode csv\nSELECT 'x' AS s, NULL AS n, '' AS e;\n.mode json\nSELECT NULL AS n, '' AS e;\n.mode line\nSELECT NULL AS n, '' AS e;\n.mode markdown\nSELECT NULL AS n, '' AS e, 5 AS i;\n.mode table\nSELECT NULL AS n, '' AS e;\n" |
  "$tributary" sql --warehouse "$wh" > "$work/out.txt"
expect_in "$work/out.txt" 's,n,e'
expect_in "$work/out.txt" 'x,,""'
expect_in "$work/out.txt" '{"n":null,"e":""}'
expect_in "$work/out.txt" 'n = NULL'
grep -qx 'e = ' "$work/out.txt" || { cat "$work/out.txt"; fail "line mode: '' is not empty"; }
expect_in "$work/out.txt" '| n    | e   | i   |'
expect_in "$work/out.txt" '|------|-----|----:|'
expect_in "$work/out.txt" '| NULL |     |   5 |'
expect_in "$work/out.txt" '| NULL |        |'
expect_in "$work/out.txt" '| void | string |'
# .maxrows limits a table in any mode; -1 shows every row again.
printf '.maxrows 4\nSELECT explode(sequence(1, 10)) AS id;\n.maxrows -1\nSELECT explode(sequence(11, 20)) AS id;\n' |
  "$tributary" sql --warehouse "$wh" > "$work/out.txt"
expect_in "$work/out.txt" '10 rows (4 shown)'
[ "$(grep -c '^| *[0-9][0-9]* |$' "$work/out.txt")" -eq 14 ] || { cat "$work/out.txt"; fail ".maxrows"; }
expect_in "$work/out.txt" '| ... |'
expect_not_in "$work/out.txt" '|   3 |'
expect_in "$work/out.txt" '|   9 |'
# --format markdown, and every row when not interactive (no footer).
"$tributary" sql --warehouse "$wh" --format markdown "SELECT device FROM events ORDER BY device" \
  > "$work/out.txt"
[ "$(cat "$work/out.txt")" = "$(printf '| device |\n|--------|\n| a      |\n| b      |')" ] ||
  { cat "$work/out.txt"; fail "--format markdown"; }
"$tributary" sql --warehouse "$wh" "SELECT explode(sequence(1, 100)) AS id" > "$work/out.txt"
[ "$(grep -c '^| *[0-9][0-9]* |$' "$work/out.txt")" -eq 100 ] || { cat "$work/out.txt"; fail "not every row"; }
expect_not_in "$work/out.txt" 'shown'
if "$tributary" sql --warehouse "$wh" --format yaml "SELECT 1" 2> "$work/err.txt"; then
  fail "--format yaml was accepted"
fi
expect_in "$work/err.txt" "unknown format 'yaml'"
# Timestamps in the session time zone as Spark shows them; json stays canonical UTC.
query="SELECT TIMESTAMP '2024-07-01 12:00:00.250' AS t"
"$tributary" --timezone America/Los_Angeles sql --warehouse "$wh" --format csv "$query" \
  > "$work/out.txt"
[ "$(tail -n 1 "$work/out.txt")" = '2024-07-01 12:00:00.25' ] || { cat "$work/out.txt"; fail "csv timestamp"; }
"$tributary" --timezone America/Los_Angeles sql --warehouse "$wh" "$query" > "$work/out.txt"
expect_in "$work/out.txt" '| 2024-07-01 12:00:00.25 |'
expect_in "$work/out.txt" '| timestamp              |'
out=$("$tributary" --timezone America/Los_Angeles sql --warehouse "$wh" --format json "$query")
[ "$out" = '{"t":"2024-07-01T19:00:00.250000Z"}' ] || fail "json timestamp: $out"

# --bail (the default of scripts) stops at the first failing statement; --no-bail goes on,
# names each failing statement's line and still exits 1.
printf 'SELECT 1 AS a;\nSELECT * FROM missing;\nCREATE TABLE after_error (id INT) USING DELTA;\n' \
  > "$work/script.sql"
if "$tributary" sql --warehouse "$wh" --bail -f "$work/script.sql" > /dev/null 2> "$work/err.txt"; then
  fail "--bail -f with a failing statement exited 0"
fi
expect_in "$work/err.txt" "statement at line 2 of $work/script.sql"
[ ! -e "$wh/after_error" ] || fail "--bail ran a statement after the failing one"
if "$tributary" sql --warehouse "$wh" --no-bail -f "$work/script.sql" > /dev/null 2> "$work/err.txt"; then
  fail "--no-bail -f with a failing statement exited 0"
fi
expect_in "$work/err.txt" "statement at line 2 of $work/script.sql"
[ -d "$wh/after_error/_delta_log" ] || fail "--no-bail -f did not run the statements after the error"
if "$tributary" sql --warehouse "$wh" --no-bail < "$work/script.sql" > "$work/out.txt" 2> "$work/err.txt"; then
  fail "--no-bail from a pipe with a failing statement exited 0"
fi
expect_in "$work/err.txt" "statement at line 2 of standard input"
expect_in "$work/err.txt" "after_error"  # the CREATE ran again and failed: it exists
if "$tributary" sql --warehouse "$wh" --no-bail --format json "SELECT * FROM missing; SELECT 3 AS c" \
  > "$work/out.txt" 2> "$work/err.txt"; then
  fail "--no-bail STATEMENTS with a failing statement exited 0"
fi
expect_in "$work/out.txt" '{"c":3}'
expect_in "$work/err.txt" "statement at line 1 of the command line"
if "$tributary" sql --warehouse "$wh" --bail --no-bail "SELECT 1" > /dev/null 2>&1; then
  fail "--bail with --no-bail was accepted"
fi
# An unknown dot command fails a script.
if printf '.nonsense\nSELECT 1;\n' | "$tributary" sql --warehouse "$wh" > /dev/null 2> "$work/err.txt"; then
  fail "an unknown dot command exited 0"
fi
expect_in "$work/err.txt" "unknown command '.nonsense'"
echo "cli_shell: ok"

#!/usr/bin/env bash
# bench-usage: the usage plugin against ccusage 20.0.24 on the same generated
# Claude Code logs. Prints CPU-seconds and peak memory (/usr/bin/time -v) of
# a cold CLI run of each and their ratios, checks that daily tokens are equal
# and daily cost within $0.01 (pricing: ccusage), then measures a warm call
# and a call after appending 1 MB through one resident process.
#
# Knobs (environment):
#   USAGE_BENCH_BYTES   size of the generated logs (default 1073741824, ~1 GB)
#   USAGE_BENCH_SEED    generator seed (default 1)
#   USAGE_BENCH_DIR     work folder; generated data is kept there and reused
#                       (default ${TMPDIR:-/tmp}/toolhost-usage-bench)
#   CCUSAGE_PREFIX      npm prefix holding ccusage (default
#                       ${XDG_CACHE_HOME:-$HOME/.cache}/toolhost-bench/ccusage-20.0.24);
#                       installed there on first use
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
BYTES=${USAGE_BENCH_BYTES:-1073741824}
SEED=${USAGE_BENCH_SEED:-1}
WORK=${USAGE_BENCH_DIR:-${TMPDIR:-/tmp}/toolhost-usage-bench}
PREFIX=${CCUSAGE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/toolhost-bench/ccusage-20.0.24}
CCUSAGE_VERSION=20.0.24

need() { command -v "$1" >/dev/null || { echo "bench-usage: $1 is required" >&2; exit 2; }; }
need go
need npm
[ -x /usr/bin/time ] || { echo "bench-usage: /usr/bin/time is required (apt-get install time)" >&2; exit 2; }

mkdir -p "$WORK/bin"
echo "== build"
go build -o "$WORK/bin/usagegen" ./tests/usagegen/cmd/usagegen
go build -o "$WORK/bin/usage" ./plugins/usage
cp plugins/usage/tool.yaml "$WORK/bin/tool.yaml"
go build -o "$WORK/bin/compare" ./tests/bench/usage/compare

DATA="$WORK/data-seed$SEED-$BYTES"
if [ ! -f "$DATA/expected.json" ]; then
	echo "== generate ~$BYTES bytes of Claude Code logs (seed $SEED)"
	rm -rf "$DATA"
	"$WORK/bin/usagegen" -out "$DATA" -seed "$SEED" -bytes "$BYTES" -sessions 100 -content 1500 -codex -1
else
	echo "== reuse $DATA"
fi

CC="$PREFIX/node_modules/.bin/ccusage"
if [ ! -x "$CC" ]; then
	echo "== npm install ccusage@$CCUSAGE_VERSION into $PREFIX"
	mkdir -p "$PREFIX"
	npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "ccusage@$CCUSAGE_VERSION"
fi
got=$("$CC" --version 2>/dev/null | tail -1)
case "$got" in *"$CCUSAGE_VERSION"*) ;; *) echo "bench-usage: want ccusage $CCUSAGE_VERSION, got '$got'" >&2; exit 2 ;; esac

# Both tools see only the generated logs (go keeps its own caches).
EMPTY="$WORK/empty-home"
mkdir -p "$EMPTY/codex"
ISOLATED=(env HOME="$EMPTY" CLAUDE_CONFIG_DIR="$DATA/claude" CODEX_HOME="$EMPTY/codex"
	XDG_CONFIG_HOME="$EMPTY/.config" XDG_DATA_HOME="$EMPTY/.local/share" XDG_CACHE_HOME="$EMPTY/.cache" TZ=UTC)

# Warm the page cache so neither run pays for the disk.
find "$DATA/claude" -name '*.jsonl' -exec cat {} + >/dev/null

# run LABEL CMD...: runs CMD under /usr/bin/time -v; stdout to $WORK/LABEL.json.
run() {
	local label=$1
	shift
	"${ISOLATED[@]}" /usr/bin/time -v "$@" >"$WORK/$label.json" 2>"$WORK/$label.time" || {
		echo "bench-usage: $label failed:" >&2
		tail -20 "$WORK/$label.time" >&2
		exit 1
	}
	awk -F': ' -v l="$label" '
		/User time \(seconds\)/ {u=$2} /System time \(seconds\)/ {s=$2}
		/Maximum resident set size/ {m=$2}
		END {printf "%s %.3f %.1f\n", l, u+s, m/1024}' "$WORK/$label.time" >"$WORK/$label.stat"
}

echo "== cold runs"
run ccusage "$CC" daily --json --offline -z UTC --mode calculate
run usage "$WORK/bin/usage" get-usage --from 2000-01-01 --to 2100-12-31 --by day --timezone UTC --pricing ccusage --limit 100

read -r _ cc_cpu cc_mem <"$WORK/ccusage.stat"
read -r _ us_cpu us_mem <"$WORK/usage.stat"
size_mb=$(du -sm "$DATA/claude" | cut -f1)
echo
printf '%-26s %10s %12s\n' "on ${size_mb} MB of logs" "CPU-s" "peak RSS MB"
printf '%-26s %10.3f %12.1f\n' "ccusage $CCUSAGE_VERSION" "$cc_cpu" "$cc_mem"
printf '%-26s %10.3f %12.1f\n' "usage plugin (CLI, cold)" "$us_cpu" "$us_mem"
awk -v a="$us_cpu" -v b="$cc_cpu" -v c="$us_mem" -v d="$cc_mem" 'BEGIN {
	printf "ratios usage/ccusage: CPU %.3fx (goal <= 0.25), memory %.3fx (goal <= 0.25)\n", a/b, c/d }'

echo
echo "== ccusage as the oracle (pricing: ccusage)"
"$WORK/bin/compare" -ccusage "$WORK/ccusage.json" -usage "$WORK/usage.json" -tolerance 0.01

echo
echo "== resident process: cold, warm, +1 MB appended"
USAGE_BENCH_DATA="$DATA/claude" USAGE_BENCH_OUT="$WORK/resident.json" \
	go test -count=1 -run '^TestBenchResident$' -v ./plugins/usage/ | grep -E 'cold|warm|after|RESULT' || true
[ -f "$WORK/resident.json" ] && awk -v RS=',' -F':' '
	/warm_ratio/ {gsub(/[}" ]/, "", $2); printf "warm call: %.3f%% of the cold scan (goal <= 1%%)\n", $2*100}
	/append_ratio/ {gsub(/[}" ]/, "", $2); printf "after +1 MB: %.3f%% of the cold scan (goal <= 3%%)\n", $2*100}
	/append_bytes_read/ {gsub(/[}" ]/, "", $2); printf "bytes re-read after the append: %s\n", $2}' "$WORK/resident.json"

echo
echo "== statusline: ccusage statusline against usage statusline, same home"
# A session of the logs, as Claude Code names it in its statusline JSON.
TRANSCRIPT=$(find "$DATA/claude/projects" -name '*.jsonl' -not -path '*/subagents/*' | sort | awk 'NR == 1')
SESSION=$(basename "$TRANSCRIPT" .jsonl)
printf '{"hook_event_name":"Status","session_id":"%s","transcript_path":"%s","cwd":"/home/dev","model":{"id":"claude-sonnet-4-5","display_name":"Sonnet 4.5"},"workspace":{"current_dir":"/home/dev","project_dir":"/home/dev"},"version":"2.0.14","cost":{"total_cost_usd":0.5,"total_duration_ms":1000}}\n' \
	"$SESSION" "$TRANSCRIPT" >"$WORK/statusline.json"
# The appended megabyte is taken off again at the end: the data is reused.
SIZE0=$(stat -c %s "$TRANSCRIPT")
trap 'truncate -s "$SIZE0" "$TRANSCRIPT"' EXIT
rm -rf "$EMPTY/.cache/toolhost-usage" /tmp/ccusage-semaphore
# sl LABEL CMD...: one statusline run, stdin the JSON; CPU-seconds to LABEL.stat.
sl() {
	local label=$1
	shift
	"${ISOLATED[@]}" /usr/bin/time -v "$@" <"$WORK/statusline.json" >"$WORK/$label.out" 2>"$WORK/$label.time" || {
		echo "bench-usage: $label failed:" >&2
		tail -20 "$WORK/$label.time" >&2
		exit 1
	}
	awk -F': ' -v l="$label" '/User time \(seconds\)/ {u=$2} /System time \(seconds\)/ {s=$2}
		END {printf "%s %.3f\n", l, u+s}' "$WORK/$label.time" >"$WORK/$label.stat"
}
# ccusage keeps its last line for --refresh-interval (1 s): Claude Code's
# updates further apart than that make it compute again, as measured here
# (each run 1.5 s after the one before); its cached answer is shown too.
sl cc_first "$CC" statusline --offline
sleep 1.5
sl cc_warm "$CC" statusline --offline
sl cc_cached "$CC" statusline --offline
sl us_cold "$WORK/bin/usage" statusline
sl us_warm "$WORK/bin/usage" statusline
# Append ~1 MB of Claude Code lines (other sessions', whole lines) to the transcript.
{ find "$DATA/claude/projects" -name '*.jsonl' -not -path '*/subagents/*' | sort | awk 'NR > 1' |
	xargs cat 2>/dev/null | head -c 1048576 || true; } | sed '$d' >>"$TRANSCRIPT"
APPENDED=$(($(stat -c %s "$TRANSCRIPT") - SIZE0))
sleep 1.5
sl cc_append "$CC" statusline --offline
sl us_append "$WORK/bin/usage" statusline
for l in cc_first cc_warm cc_cached us_cold us_warm cc_append us_append; do read -r _ "v_$l" <"$WORK/$l.stat"; done
printf '%-44s %10s\n' "statusline, ${size_mb} MB of logs" "CPU-s"
printf '%-44s %10.3f\n' "ccusage, first run" "$v_cc_first" "ccusage, again after 1.5 s (recomputes)" "$v_cc_warm" \
	"ccusage, again within 1 s (its cached line)" "$v_cc_cached" "usage, first run (no index yet)" "$v_us_cold" \
	"usage, warm (index, logs unchanged)" "$v_us_warm" "ccusage, after +$APPENDED bytes" "$v_cc_append" \
	"usage, after +$APPENDED bytes" "$v_us_append"
awk -v w="$v_us_warm" -v cw="$v_cc_warm" -v a="$v_us_append" -v ca="$v_cc_append" 'BEGIN {
	printf "ratios usage/ccusage: warm %.3fx (goal <= 0.2), after the append %.3fx (goal <= 0.5)\n", w/cw, a/ca }'
echo "lines: ccusage: $(head -1 "$WORK/cc_warm.out")"
echo "       usage:   $(head -1 "$WORK/us_warm.out")"

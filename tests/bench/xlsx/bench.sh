#!/usr/bin/env bash
# Benchmark: the xlsx plugin's CLI against openpyxl (read_only=True) on a
# generated ROWS × 10 workbook (default 200,000 rows: integers, decimals,
# shared strings, booleans, dates, date-times), measured in the same run
# with cpurun (CPU from each process's rusage, to the microsecond). Prints
# CPU seconds, wall seconds, peak RSS and the ratios to openpyxl. Installs python3-openpyxl (Debian) when it is missing.
#
#   tests/bench/xlsx/bench.sh            # 200,000 rows
#   ROWS=20000 tests/bench/xlsx/bench.sh
#   REPEAT_SMALL=20 tests/bench/xlsx/bench.sh  # runs per mid-size figure (10)
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROWS=${ROWS:-200000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

need_apt() {
	if command -v apt-get >/dev/null; then
		apt-get install -y "$@" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$@" >/dev/null; }
	else
		echo "bench: please install $* (needs apt-get)" >&2
		exit 1
	fi
}
/usr/bin/python3 -c 'import openpyxl' 2>/dev/null || need_apt python3-openpyxl

# built as make plugins builds it: without cgo, with PLUGIN_TAGS
CGO_ENABLED=0 go build -tags grpcnotrace -o "$work/xlsx" ./plugins/xlsx
go build -o "$work/cpurun" ./tests/bench/xlsx/cpurun
cp plugins/xlsx/tool.yaml "$work/"
go run ./tests/bench/xlsx/gen -rows "$ROWS" -o "$work/bench.xlsx"
export XLSX_ROOTS="$work" XLSX_OUTPUT_DIR="$work"
echo "workbook: $ROWS rows x 10 columns, $(du -h "$work/bench.xlsx" | cut -f1) on disk, openpyxl $(/usr/bin/python3 -c 'import openpyxl; print(openpyxl.__version__)'), $(go version | cut -d' ' -f3)"

# measure LABEL CMD... : runs CMD once (stdout to a file) with cpurun and
# adds its CPU (user+system from the finished child's rusage, kept to the
# microsecond where /usr/bin/time prints 10 ms steps) and wall time to
# LABEL's sums; RSS keeps the largest peak. bench calls it round by round,
# every reader once a round, so openpyxl and the plugin see the same
# machine: this virtual machine's speed moves by half within minutes, and
# running one reader's N runs before the other's measured the drift. RM
# names a file removed before each run (dump --save's target).
declare -A CPU WALL RSS
REPEAT=1
RM=
measure() {
	local label=$1 line cpu wall rss
	shift
	line=$("$work/cpurun" -n 1 -stdout "$work/out" ${RM:+-rm "$RM"} -- "$@" 2>"$work/err") || {
		echo "bench: $label failed:" >&2
		cat "$work/err" "$work/out" >&2
		exit 1
	}
	read -r cpu wall rss <<<"$line"
	CPU[$label]=$(awk -v a="${CPU[$label]:-0}" -v b="$cpu" 'BEGIN {printf "%.6f", a + b}')
	WALL[$label]=$(awk -v a="${WALL[$label]:-0}" -v b="$wall" 'BEGIN {printf "%.6f", a + b}')
	RSS[$label]=$(awk -v a="${RSS[$label]:-0}" -v k="$rss" 'BEGIN {m = k / 1024; printf "%.0f", (m > a ? m : a)}')
}

# mean LABEL... : turns each LABEL's sums into means over REPEAT rounds.
mean() {
	local k
	for k in "$@"; do
		CPU[$k]=$(awk -v a="${CPU[$k]}" -v n="$REPEAT" 'BEGIN {printf "%.6f", a / n}')
		WALL[$k]=$(awk -v a="${WALL[$k]}" -v n="$REPEAT" 'BEGIN {printf "%.6f", a / n}')
	done
}

# row LABEL BASELINE NAME : one line of the table, ratios against BASELINE.
row() {
	local k=$1 base=$2 name=$3
	cr=$(awk -v a="${CPU[$base]}" -v b="${CPU[$k]}" 'BEGIN {printf "%.1fx", (b > 0 ? a / b : 0)}')
	rr=$(awk -v a="${RSS[$base]}" -v b="${RSS[$k]}" 'BEGIN {printf "%.2fx", (b > 0 ? b / a : 0)}')
	printf '%-46s %8.3f %8.3f %8s %10s %10s\n' "$name" "${CPU[$k]}" "${WALL[$k]}" "${RSS[$k]}" "$cr" "$rr"
}

# bench BOOK TITLE [SHEET] : every action a person uses on BOOK (its SHEET,
# default the first) against openpyxl read_only reading that sheet (dump:
# every sheet), whole processes.
bench() {
	local book=$1 title=$2 sheet=${3:-}
	local py=() ours=()
	if [ -n "$sheet" ]; then
		py=(--sheet "$sheet")
		ours=(--sheet "$sheet")
	fi
	local labels=(openpyxl openpyxl-all read-sheet dump records describe search) k r
	for k in "${labels[@]}"; do
		CPU[$k]=0 WALL[$k]=0 RSS[$k]=0
	done
	for ((r = 0; r < REPEAT; r++)); do
		measure openpyxl /usr/bin/python3 tests/bench/xlsx/openpyxl_read.py "$book" "${py[@]}"
		measure openpyxl-all /usr/bin/python3 tests/bench/xlsx/openpyxl_read.py "$book" --all
		measure read-sheet "$work/xlsx" read-sheet --path "$book" "${ours[@]}" --max-results 10000000
		RM=$work/dump.txt measure dump "$work/xlsx" dump --path "$book" --save "$work/dump.txt"
		rm -f "$work/dump.txt"
		measure records "$work/xlsx" records --path "$book" "${ours[@]}" --max-results 10000000
		measure describe "$work/xlsx" describe --path "$book" "${ours[@]}"
		measure search "$work/xlsx" search --path "$book" "${ours[@]}" --query "no such text"
	done
	mean "${labels[@]}"
	echo
	echo "== $title"
	printf '%-46s %8s %8s %8s %10s %10s\n' "reader" "CPU s" "wall s" "RSS MB" "CPU ratio" "RSS ratio"
	row openpyxl openpyxl "openpyxl read_only iter_rows (that sheet)"
	row openpyxl-all openpyxl-all "openpyxl read_only iter_rows (every sheet)"
	row read-sheet openpyxl "xlsx read-sheet, every row as JSON"
	row dump openpyxl-all "xlsx dump --save (every sheet as text)"
	row records openpyxl "xlsx records, every row"
	row describe openpyxl "xlsx describe"
	# search without --sheet searches every worksheet: against openpyxl
	# reading every sheet, as dump is.
	if [ -n "$sheet" ]; then
		row search openpyxl "xlsx search (no match: every cell)"
	else
		row search openpyxl-all "xlsx search (every sheet; no match)"
	fi
}

bench "$work/bench.xlsx" "generated: $ROWS rows x 10 columns"
# The mid-size workbooks take a fraction of a second: each figure is the
# mean of REPEAT_SMALL rounds (default 10), for openpyxl as for the plugin.
REPEAT=${REPEAT_SMALL:-10}
# Mid-size real workbooks from other readers' test suites (see
# plugins/xlsx/testdata/corpus/SOURCES.tsv for origin and licence).
f=sheetjs__large_strings.xlsx
cp "plugins/xlsx/testdata/corpus/files/$f" "$work/"
bench "$work/$f" "real: $f, sheet 'Large Strings' (9,999 rows x 17, long formula strings; $(du -h "$work/$f" | cut -f1))"
bench "$work/$f" "real: $f, sheet 'longwordslist' (17,619 rows x 2)" longwordslist
echo
echo "CPU ratio: openpyxl CPU / ours (higher is faster); dump is compared with openpyxl reading every sheet."
echo "RSS ratio: ours / openpyxl peak RSS (lower is leaner). Whole processes: Python's and Go's start-up count."
echo "CPU seconds, not wall: the machine may be shared. CPU: user+system from each finished process's rusage (microseconds),"
echo "summed over the runs and divided by their number ($REPEAT rounds for each mid-size figure, 1 the large: every reader"
echo "once a round, in turn, so all see the same machine); RSS: the largest peak."
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# And the values agree: random workbooks written and read by openpyxl, read by the plugin.
/usr/bin/python3 tests/bench/xlsx/differential.py "$work/xlsx" 3 2>/dev/null

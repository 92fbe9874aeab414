#!/usr/bin/env bash
# Benchmark: the xlsx plugin's CLI against openpyxl (read_only=True) on a
# generated ROWS × 10 workbook (default 200,000 rows: integers, decimals,
# shared strings, booleans, dates, date-times), measured in the same run
# with /usr/bin/time -v. Prints CPU seconds, wall seconds, peak RSS and the
# ratios to openpyxl. Installs python3-openpyxl (Debian) when it is missing.
#
#   tests/bench/xlsx/bench.sh            # 200,000 rows
#   ROWS=20000 tests/bench/xlsx/bench.sh
#   REPEAT_SMALL=9 tests/bench/xlsx/bench.sh  # runs per mid-size figure (5)
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
[ -x /usr/bin/time ] || need_apt time

# built as make plugins builds it: without cgo
CGO_ENABLED=0 go build -o "$work/xlsx" ./plugins/xlsx
cp plugins/xlsx/tool.yaml "$work/"
go run ./tests/bench/xlsx/gen -rows "$ROWS" -o "$work/bench.xlsx"
export XLSX_ROOTS="$work"
echo "workbook: $ROWS rows x 10 columns, $(du -h "$work/bench.xlsx" | cut -f1) on disk, openpyxl $(/usr/bin/python3 -c 'import openpyxl; print(openpyxl.__version__)'), $(go version | cut -d' ' -f3)"

# measure LABEL CMD... : runs CMD REPEAT times (stdout to a file) and
# records the CPU, wall and RSS of the run that took the least CPU: on a
# shared machine the least is the least disturbed, and openpyxl and the
# plugin get the same treatment.
declare -A CPU WALL RSS
REPEAT=1
measure() {
	local label=$1 i cpu
	shift
	CPU[$label]=
	for ((i = 0; i < REPEAT; i++)); do
		rm -f "$work/dump.txt"
		/usr/bin/time -v -o "$work/time" "$@" >"$work/out" 2>"$work/err" || {
			echo "bench: $label failed:" >&2
			cat "$work/err" "$work/time" >&2
			exit 1
		}
		cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$work/time")
		if [ -z "${CPU[$label]}" ] || awk -v a="$cpu" -v b="${CPU[$label]}" 'BEGIN {exit !(a < b)}'; then
			CPU[$label]=$cpu
			WALL[$label]=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; printf "%.2f", s}' "$work/time")
			RSS[$label]=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time")
		fi
	done
}

# row LABEL BASELINE NAME : one line of the table, ratios against BASELINE.
row() {
	local k=$1 base=$2 name=$3
	cr=$(awk -v a="${CPU[$base]}" -v b="${CPU[$k]}" 'BEGIN {printf "%.1fx", (b > 0 ? a / b : 0)}')
	rr=$(awk -v a="${RSS[$base]}" -v b="${RSS[$k]}" 'BEGIN {printf "%.2fx", (b > 0 ? b / a : 0)}')
	printf '%-44s %8s %8s %8s %10s %10s\n' "$name" "${CPU[$k]}" "${WALL[$k]}" "${RSS[$k]}" "$cr" "$rr"
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
	measure openpyxl /usr/bin/python3 tests/bench/xlsx/openpyxl_read.py "$book" "${py[@]}"
	measure openpyxl-all /usr/bin/python3 tests/bench/xlsx/openpyxl_read.py "$book" --all
	measure read-sheet "$work/xlsx" read-sheet --path "$book" "${ours[@]}" --max-results 10000000
	measure dump "$work/xlsx" dump --path "$book" --save "$work/dump.txt"
	rm -f "$work/dump.txt"
	measure records "$work/xlsx" records --path "$book" "${ours[@]}" --max-results 10000000
	measure describe "$work/xlsx" describe --path "$book" "${ours[@]}"
	measure search "$work/xlsx" search --path "$book" "${ours[@]}" --query "no such text"
	echo
	echo "== $title"
	printf '%-44s %8s %8s %8s %10s %10s\n' "reader" "CPU s" "wall s" "RSS MB" "CPU ratio" "RSS ratio"
	row openpyxl openpyxl "openpyxl read_only iter_rows (that sheet)"
	row openpyxl-all openpyxl-all "openpyxl read_only iter_rows (every sheet)"
	row read-sheet openpyxl "xlsx read-sheet, every row as JSON"
	row dump openpyxl-all "xlsx dump --save (every sheet as text)"
	row records openpyxl "xlsx records, every row"
	row describe openpyxl "xlsx describe"
	row search openpyxl "xlsx search (no match: every cell)"
}

bench "$work/bench.xlsx" "generated: $ROWS rows x 10 columns"
# The mid-size workbooks take a fraction of a second: each figure is the
# least of REPEAT_SMALL runs (default 5), for openpyxl as for the plugin.
REPEAT=${REPEAT_SMALL:-5}
# Mid-size real workbooks from other readers' test suites (see
# plugins/xlsx/testdata/corpus/SOURCES.tsv for origin and licence).
f=sheetjs__large_strings.xlsx
cp "plugins/xlsx/testdata/corpus/files/$f" "$work/"
bench "$work/$f" "real: $f, sheet 'Large Strings' (9,999 rows x 17, long formula strings; $(du -h "$work/$f" | cut -f1))"
bench "$work/$f" "real: $f, sheet 'longwordslist' (17,619 rows x 2)" longwordslist
echo
echo "CPU ratio: openpyxl CPU / ours (higher is faster); dump is compared with openpyxl reading every sheet."
echo "RSS ratio: ours / openpyxl peak RSS (lower is leaner). Whole processes: Python's and Go's start-up count."
echo "CPU seconds, not wall: the machine may be shared. Mid-size figures: the least CPU of $REPEAT runs each."

# And the values agree: random workbooks written and read by openpyxl, read by the plugin.
/usr/bin/python3 tests/bench/xlsx/differential.py "$work/xlsx" 3 2>/dev/null

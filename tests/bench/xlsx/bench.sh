#!/usr/bin/env bash
# Benchmark: the xlsx plugin's CLI against openpyxl (read_only=True) on a
# generated ROWS × 10 workbook (default 200,000 rows: integers, decimals,
# shared strings, booleans, dates, date-times), measured in the same run
# with /usr/bin/time -v. Prints CPU seconds, wall seconds, peak RSS and the
# ratios to openpyxl. Installs python3-openpyxl (Debian) when it is missing.
#
#   tests/bench/xlsx/bench.sh            # 200,000 rows
#   ROWS=20000 tests/bench/xlsx/bench.sh
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

go build -o "$work/xlsx" ./plugins/xlsx
cp plugins/xlsx/tool.yaml "$work/"
go run ./tests/bench/xlsx/gen -rows "$ROWS" -o "$work/bench.xlsx"
export XLSX_ROOTS="$work"
echo "workbook: $ROWS rows x 10 columns, $(du -h "$work/bench.xlsx" | cut -f1) on disk, openpyxl $(/usr/bin/python3 -c 'import openpyxl; print(openpyxl.__version__)'), $(go version | cut -d' ' -f3)"

# measure LABEL CMD... : runs CMD with stdout to a file, records CPU, wall, RSS.
declare -A CPU WALL RSS
measure() {
	local label=$1
	shift
	/usr/bin/time -v -o "$work/time" "$@" >"$work/out" 2>"$work/err" || {
		echo "bench: $label failed:" >&2
		cat "$work/err" "$work/time" >&2
		exit 1
	}
	CPU[$label]=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$work/time")
	WALL[$label]=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; printf "%.2f", s}' "$work/time")
	RSS[$label]=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time")
}

measure openpyxl /usr/bin/python3 tests/bench/xlsx/openpyxl_read.py "$work/bench.xlsx"
measure describe "$work/xlsx" describe --path "$work/bench.xlsx"
measure search "$work/xlsx" search --path "$work/bench.xlsx" --query "no such text"
measure read-sheet "$work/xlsx" read-sheet --path "$work/bench.xlsx" --max-results "$((ROWS + 1))"

printf '%-34s %8s %8s %9s %11s %11s\n' "reader (every cell of $ROWS rows)" "CPU s" "wall s" "RSS MB" "CPU ratio" "RSS ratio"
for k in openpyxl describe search read-sheet; do
	case $k in
	openpyxl) name="openpyxl read_only iter_rows" ;;
	describe) name="xlsx describe" ;;
	search) name="xlsx search (no match)" ;;
	read-sheet) name="xlsx read-sheet, all rows as JSON" ;;
	esac
	cr=$(awk -v a="${CPU[openpyxl]}" -v b="${CPU[$k]}" 'BEGIN {printf "%.1fx", (b > 0 ? a / b : 0)}')
	rr=$(awk -v a="${RSS[openpyxl]}" -v b="${RSS[$k]}" 'BEGIN {printf "%.2fx", (b > 0 ? b / a : 0)}')
	printf '%-34s %8s %8s %9s %11s %11s\n' "$name" "${CPU[$k]}" "${WALL[$k]}" "${RSS[$k]}" "$cr" "$rr"
done
echo "CPU ratio: openpyxl CPU / ours (higher is faster). RSS ratio: ours / openpyxl (lower is leaner)."

# And the values agree: random workbooks written and read by openpyxl, read by the plugin.
/usr/bin/python3 tests/bench/xlsx/differential.py "$work/xlsx" 3 2>/dev/null

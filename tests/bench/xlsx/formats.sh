#!/usr/bin/env bash
# Benchmark: the xlsx plugin's read-sheet on a large .xls and a large .ods
# against the oracle readers, xlrd (python3-xlrd) and odfpy (python3-odf),
# in the same run with cpurun (CPU from each process's rusage). The
# workbooks are the generated ROWS × 10 sheet of bench.sh (default 65,000
# rows, within .xls's 65,536), converted by LibreOffice headless, so the
# files are as LibreOffice writes them. Installs the Debian packages of
# scripts/debian-packages-bench-xlsx.txt when missing.
#
#   tests/bench/xlsx/formats.sh
#   ROWS=20000 REPEAT=3 tests/bench/xlsx/formats.sh   # (odfpy takes minutes a round)
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROWS=${ROWS:-65000}
REPEAT=${REPEAT:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sh scripts/debian-deps.sh debian-packages-bench-xlsx.txt

CGO_ENABLED=0 go build -tags grpcnotrace -o "$work/xlsx" ./plugins/xlsx
go build -o "$work/cpurun" ./tests/bench/xlsx/cpurun
cp plugins/xlsx/tool.yaml "$work/"
go run ./tests/bench/xlsx/gen -rows "$ROWS" -o "$work/bench.xlsx"
for fmt in xls ods; do
	soffice -env:UserInstallation="file://$work/lo" --headless --norestore \
		--convert-to "$fmt" --outdir "$work" "$work/bench.xlsx" >/dev/null 2>&1 </dev/null
	[ -s "$work/bench.$fmt" ] || { echo "bench: LibreOffice did not write bench.$fmt" >&2; exit 1; }
done
export XLSX_ROOTS="$work"
echo "workbook: $ROWS rows x 10 columns, converted by $(soffice --version | cut -d' ' -f1-2); .xls $(du -h "$work/bench.xls" | cut -f1), .ods $(du -h "$work/bench.ods" | cut -f1)"

declare -A CPU WALL RSS
measure() {
	local label=$1 line cpu wall rss
	shift
	line=$("$work/cpurun" -n 1 -stdout "$work/out" -- "$@" 2>"$work/err") || {
		echo "bench: $label failed:" >&2
		cat "$work/err" >&2
		exit 1
	}
	read -r cpu wall rss <<<"$line"
	CPU[$label]=$(awk -v a="${CPU[$label]:-0}" -v b="$cpu" 'BEGIN {printf "%.6f", a + b}')
	WALL[$label]=$(awk -v a="${WALL[$label]:-0}" -v b="$wall" 'BEGIN {printf "%.6f", a + b}')
	RSS[$label]=$(awk -v a="${RSS[$label]:-0}" -v k="$rss" 'BEGIN {m = k / 1024; printf "%.0f", (m > a ? m : a)}')
}
# Every reader once a round, in turn, so all see the same machine.
for ((r = 0; r < REPEAT; r++)); do
	measure xlrd /usr/bin/python3 tests/bench/xlsx/xlrd_read.py "$work/bench.xls"
	measure ours-xls "$work/xlsx" read-sheet --path "$work/bench.xls" --max-results 10000000
	measure odfpy /usr/bin/python3 tests/bench/xlsx/odf_read.py "$work/bench.ods"
	measure ours-ods "$work/xlsx" read-sheet --path "$work/bench.ods" --max-results 10000000
done
row() {
	local k=$1 base=$2 name=$3
	local c w b
	c=$(awk -v a="${CPU[$k]}" -v n="$REPEAT" 'BEGIN {printf "%.3f", a / n}')
	w=$(awk -v a="${WALL[$k]}" -v n="$REPEAT" 'BEGIN {printf "%.3f", a / n}')
	cr=$(awk -v a="${CPU[$base]}" -v b="${CPU[$k]}" 'BEGIN {printf "%.1fx", (b > 0 ? a / b : 0)}')
	rr=$(awk -v a="${RSS[$base]}" -v b="${RSS[$k]}" 'BEGIN {printf "%.2fx", (b > 0 ? b / a : 0)}')
	printf '%-40s %8s %8s %8s %10s %10s\n' "$name" "$c" "$w" "${RSS[$k]}" "$cr" "$rr"
}
echo
printf '%-40s %8s %8s %8s %10s %10s\n' "reader" "CPU s" "wall s" "RSS MB" "CPU ratio" "RSS ratio"
row xlrd xlrd "xlrd 1.2.0, every row of the .xls"
row ours-xls xlrd "xlsx read-sheet .xls, every row as JSON"
row odfpy odfpy "odfpy 1.4.2, every row of the .ods"
row ours-ods odfpy "xlsx read-sheet .ods, every row as JSON"
echo
echo "CPU ratio: the oracle's CPU / ours (higher is faster); RSS ratio: ours / the oracle's peak RSS (lower is leaner)."
echo "Means of $REPEAT rounds; whole processes, Python's and Go's start-up included."

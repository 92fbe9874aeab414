#!/bin/sh
# Notes benchmark: generates a brain of NOTES_BENCH_NOTES notes (default
# 10000) in a temp folder and reports the full reindex time, search p50 and
# remember p50 (dedup + commit + index update) as the resident plugin
# serves them, with baselines measured in the same run on the same
# repository (one git rev-parse HEAD; a bare git add + commit).
#
# The measuring code lives in plugins/notes/internal/brain/bench_test.go
# (TestBenchNotes) because it drives the plugin's internal packages, which Go
# lets only plugins/notes import.
set -eu
cd "$(dirname "$0")/../../.."
out="$(mktemp "${TMPDIR:-/tmp}/notes-bench.XXXXXX")"
trap 'rm -f "$out"' EXIT
NOTES_BENCH=1 NOTES_BENCH_NOTES="${NOTES_BENCH_NOTES:-10000}" NOTES_BENCH_OUT="$out" \
	go test -count=1 -run '^TestBenchNotes$' -timeout 30m ./plugins/notes/internal/brain/ >/dev/null
cat "$out"

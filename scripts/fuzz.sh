#!/usr/bin/env bash
# Runs every fuzz target of the module (func FuzzXxx(f *testing.F) in a *_test.go file) for a
# while, one target at a time: `go test -fuzz` takes one target per run.
#
#   scripts/fuzz.sh                 # 60s per target
#   scripts/fuzz.sh 2m              # a longer run; any -fuzztime value works (e.g. 10000x)
#   scripts/fuzz.sh 30s ./app/feeds # only the targets of some packages
#   FUZZ='^FuzzSanitize$' scripts/fuzz.sh 10m   # only the targets matching a regexp
#
# An input that fails is written to the package's testdata/fuzz/FuzzXxx/ (commit it: every
# `go test` runs it from then on), and the script goes on with the other targets and exits
# non-zero at the end.
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
time=${1:-60s}
shift || true
filter=${FUZZ:-.}

if [ $# -gt 0 ]; then
	dirs=("$@")
else
	mapfile -t dirs < <(grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . |
		grep -v '/testdata/' | xargs -r -n1 dirname | sort -u)
fi

failed=()
ran=0
for dir in "${dirs[@]}"; do
	dir=./${dir#./}
	mapfile -t targets < <(grep -hoE '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' "$dir"/*_test.go |
		sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' | grep -E -- "$filter" | sort -u || true)
	for target in "${targets[@]}"; do
		echo "=== fuzz $dir $target for $time"
		ran=$((ran + 1))
		out=$(mktemp)
		if ! "$GO" test "$dir" -run '^$' -fuzz "^${target}\$" -fuzztime "$time" 2>&1 | tee "$out"; then
			# Go's fuzzer sometimes ends a short run with "context deadline exceeded" (while it
			# gathers its baseline on a busy machine, or a worker is still on an input when time
			# is up): that is its own timeout, not a finding. Only a failing input fails.
			if grep -q 'Failing input written\|panic\|--- FAIL: .*/' "$out" || ! grep -q 'context deadline exceeded' "$out"; then
				failed+=("$dir $target")
			else
				echo "=== $target: the run ended on the fuzzer's own deadline with no failing input written; not a failure (if its execs stalled, look for a slow input with a longer run)"
			fi
		fi
		rm -f "$out"
	done
done

echo "=== fuzzed $ran targets for $time each"
if [ ${#failed[@]} -gt 0 ]; then
	echo "FAIL: ${failed[*]}" >&2
	echo "The failing inputs are in testdata/fuzz/ of those packages; rerun one with go test ./pkg -run 'FuzzXxx/NAME'." >&2
	exit 1
fi

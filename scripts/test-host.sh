#!/usr/bin/env bash
# `make test-host`: every host test, with the race detector but for e2e.
#
# The e2e binary is built without -race: the race detector slowed its
# in-process servers by a quarter of the shards' wall time (383-542 s
# against 254-407 s on a quiet 2-core machine, 2026-12-08), and CI took
# 2132 s on a slow machine, past its 30 minutes. The server's concurrency
# is raced by its own package's tests (TestManyViewers). -trimpath, as
# `make build` and `make vet`, shares their compiled dependencies.
#
# The browser tests (e2e/) spend most of their time waiting on the page, on
# scrapes and on Prometheus: run one after another they took 10 min of wall
# time for under 3 min of CPU (2026-12-01). So they run in E2E_SHARDS
# processes (default 4) beside the other packages, each shard with its own
# Chromium and every test in exactly one shard (round robin over
# `-list`, so a new test needs no list). The test binary is built once.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
shards=${E2E_SHARDS:-4}
timeout=${TEST_TIMEOUT:-45m}
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

# The e2e binary first (its compile shares the build cache with the rest).
bin="$logdir/e2e.test"
$GO test -trimpath -c -o "$bin" ./e2e/
mapfile -t tests < <(cd e2e && "$bin" -test.list '^Test' | grep '^Test')
if [ "${#tests[@]}" -eq 0 ]; then
	echo "test-host: no e2e tests listed" >&2
	exit 1
fi

pids=()
names=()
$GO test -race -count=1 -timeout "$timeout" $($GO list ./... | grep -v '^specdash/e2e$') &
pids+=($!)
names+=("packages other than e2e")

for ((s = 0; s < shards; s++)); do
	run=()
	for ((i = s; i < ${#tests[@]}; i += shards)); do
		run+=("${tests[i]}")
	done
	[ "${#run[@]}" -gt 0 ] || continue
	pattern="^($(IFS='|'; echo "${run[*]}"))\$"
	(
		cd e2e
		start=$(date +%s)
		if "$bin" -test.run "$pattern" -test.count=1 -test.timeout "$timeout" >"$logdir/shard$s.log" 2>&1; then
			echo "ok   specdash/e2e shard $((s + 1))/$shards (${#run[@]} tests) $(($(date +%s) - start)) s"
		else
			echo "FAIL specdash/e2e shard $((s + 1))/$shards (${#run[@]} tests) $(($(date +%s) - start)) s:"
			cat "$logdir/shard$s.log"
			exit 1
		fi
	) &
	pids+=($!)
	names+=("e2e shard $((s + 1))")
done

rc=0
for i in "${!pids[@]}"; do
	if ! wait "${pids[i]}"; then
		echo "test-host: ${names[i]} failed" >&2
		rc=1
	fi
done
exit $rc

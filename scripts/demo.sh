#!/usr/bin/env bash
# The README's run command (via `make run`): a live demo on one machine.
# Starts `specdash simulate` (vLLM-style /metrics), a local Prometheus that
# scrapes it every second, and `specdash serve` against that Prometheus.
# Ports: SPECDASH_PORT (8080), SIM_PORT (9400), PROM_PORT (9091).
# Ctrl-C stops all three.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${SPECDASH_PORT:-8080}
SIM_PORT=${SIM_PORT:-9400}
PROM_PORT=${PROM_PORT:-9091}
work=$(mktemp -d -t specdash-demo.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

./specdash simulate --web.listen-address="127.0.0.1:${SIM_PORT}" &
pids+=($!)

cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: vllm-simulated
    static_configs:
      - targets: ["127.0.0.1:${SIM_PORT}"]
YML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
  --web.listen-address="127.0.0.1:${PROM_PORT}" --log.level=warn &
pids+=($!)

echo "specdash demo: open http://localhost:${PORT}/ (Prometheus on :${PROM_PORT}, simulator on :${SIM_PORT}); Ctrl-C stops."
./specdash serve --prometheus.url="http://127.0.0.1:${PROM_PORT}" \
  --prometheus.scrape-interval=1s --web.listen-address=":${PORT}" &
pids+=($!)
wait -n "${pids[@]}"

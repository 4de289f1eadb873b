#!/usr/bin/env bash
# Installs what specdash's build and tests need, when missing, on a Debian
# machine: Prometheus (with promtool) and Chromium from apt, ECharts and
# esbuild (which bundles specdash's ECharts build, web/echarts/entry.js) from
# npm, pinned by package-lock.json. Idempotent; needs root (or sudo) for apt.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v prometheus >/dev/null 2>&1 || need_apt+=(prometheus)
command -v promtool >/dev/null 2>&1 || need_apt+=(prometheus)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
# Node and npm: ECharts and esbuild (npm ci), the chartsvg parity tests
# (ECharts in Node) and the js/wasm tests (go's wasm_exec_node.js).
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
# VictoriaMetrics single node: the server's known-answer test beyond Prometheus.
[ -x /usr/bin/victoria-metrics ] || need_apt+=(victoria-metrics)
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "install-deps: apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi
# The Debian packages may start a system Prometheus on :9090 and
# VictoriaMetrics on :8428; specdash's tests start their own on free ports
# and do not need them.

if [ ! -f node_modules/echarts/dist/echarts.min.js ] || [ ! -x node_modules/.bin/esbuild ] ||
  [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "install-deps: npm ci (echarts and esbuild, pinned by package-lock.json)"
  npm ci --no-audit --no-fund --silent
fi

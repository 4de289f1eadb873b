//go:build !js

// Package e2e holds specdash's end-to-end test: the vLLM simulator, a real
// Prometheus scraping it, the specdash server and the wasm front end in real
// headless Chromium (chromedp), checked against report.Build. It needs
// web/dist built first (`make assets`), /usr/bin/chromium and
// /usr/bin/prometheus (`make deps`); it fails, never skips, without them.
//
// SPECDASH_UPDATE_SCREENSHOT=1 also writes the screenshot to
// docs/screenshot.png.
package e2e

package server

import "net/http"

// PageCSP is the Content-Security-Policy of every answer but the proxy's:
// the pages (/, /logs, go-app's app.js, app-worker.js, manifest, error
// pages) run only specdash's own scripts, styles and wasm.
//
//   - script-src 'self' 'wasm-unsafe-eval': app.js, wasm_exec.js,
//     preview.js, charts.js and ECharts come from the server; no inline
//     script runs (go-app v10.1.11 writes its settings into app.js), so
//     injected markup (<script>, onerror=) runs nothing. Compiling app.wasm
//     needs 'wasm-unsafe-eval' (WebAssembly.instantiateStreaming).
//     No 'unsafe-eval': the page evaluates no strings (app/chart.go calls
//     the functions of web/static/charts.js; chart formatters are ECharts
//     string templates, never function strings). e2e
//     TestPageSecurityPolicy reports any eval as a violation.
//   - style-src 'self' with style-src-attr 'unsafe-inline': the
//     stylesheets come from the server; the pre-rendered markup (go-app's
//     Style(), chartsvg's static drawings) carries style attributes, which
//     cannot run script. No <style> element is allowed.
//   - img-src data: blob:: ECharts' PNG export and the chart images.
//   - connect-src 'self': the wasm fetches only /prom and /web (the proxy
//     is the only way to a source); worker-src 'self': app-worker.js.
//   - frame-ancestors 'none' (with X-Frame-Options: DENY for older
//     browsers): no other site frames the dashboard.
const PageCSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self'; " +
	"connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// ProxyCSP is the Content-Security-Policy of every /prom answer: data, never
// a document. Should a browser render one anyway, it runs in a sandbox
// (an opaque origin: no access to specdash's origin, cookies or storage)
// that may load nothing.
const ProxyCSP = "sandbox; default-src 'none'; frame-ancestors 'none'"

// securityHeaders sets the headers above on every answer, before the
// handler runs (so error pages, auth's 401 and a recovered panic's 500
// carry them too).
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr.Set("X-Content-Type-Options", "nosniff")
		hdr.Set("Referrer-Policy", "no-referrer")
		hdr.Set("X-Frame-Options", "DENY")
		if isProxyPath(r.URL.Path) {
			hdr.Set("Content-Security-Policy", ProxyCSP)
		} else {
			hdr.Set("Content-Security-Policy", PageCSP)
		}
		h.ServeHTTP(w, r)
	})
}

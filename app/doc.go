// Package app is specdash's browser front end: go-app v10 components, their
// event handlers, the JS interop and the render functions. The components
// hold view state only: the view as data (the URL's Query, the load, texts,
// chart options and export tables) is package view's, and every number
// shown is computed by specdash/model (on specdash/compute), read through
// the server's same-origin proxy (/prom) with specdash/metricsclient.
//
// The same package is linked into the server, which pre-renders the page
// (Render runs there; OnMount, OnNav and all loading run only in the
// browser, see app.IsClient).
//
// Test hooks on the page (stable, for end-to-end tests and scripts):
//   - the root element [data-dashboard] carries data-state
//     ("loading"|"ready"|"error"), data-window-start and data-window-end
//     (Unix ms of the grid the numbers are for), data-step-seconds,
//     data-buckets and data-complete-buckets (buckets [0, complete) are
//     final; later ones may still change, see IncompleteLag), data-theme,
//     data-stale="true" when a refresh failed and older numbers are
//     shown, and data-loads, the number of loads started since the page
//     opened (1 after the first load; each refresh or change adds one);
//   - every headline number is an element [data-metric=<name>] with
//     data-value, a plain decimal that parses back to the exact float64;
//     when the number is undefined (no drafts in window) data-value is
//     absent and data-undefined="true"; names: acceptance-rate (ratio 0..1),
//     mean-acceptance-length (tokens per draft), k, drafts-per-second,
//     accepted-throughput and drafted-throughput (tokens/s);
//   - [data-metric=per-position-acceptance-rate][data-position=1..k]
//     (1-based; ratio 0..1);
//   - the breakdown table: rows [data-row] (data-group =
//     view.EncodeOption(GroupKey): "v:" + base64url of the key), cells [data-cell=<column>] with data-value like the
//     headline numbers (columns: acceptance-rate, mean-acceptance-length,
//     k, drafts-per-second, accepted-throughput) and [data-label=<name>]
//     with the label value as text;
//   - charts are [data-chart=<name>] (Chart* constants), each holding an
//     ECharts instance; exports are buttons [data-export=<name>.<csv|json|png>]
//     (name: a chart name, "breakdown" or "compare");
//   - the filter menus' hooks are in filters.go, the headline cards' in
//     cards.go (renderCards), the split charts' selector's in layout.go
//     (renderSplit); group-by checkboxes are input[data-group=<label>];
//     [data-schema] names the detected schema; compare rows are
//     [data-compare][data-significant=yes|no];
//   - after "Copy link", input[data-link] holds the view's URL.
package app

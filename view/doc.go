// Package view is the dashboard's view as data, without go-app: the URL
// state (Query: window, filters, grouping, compare, layout parameters),
// the load of one view (Result, LoadSince: model.Compute of the Query's
// window), the filter menus' values and summary line, the configured
// sources, load problems in words, the chart options and their text
// summaries (Charts), the export metadata and the text formats the pages
// print (durations, signed differences, verdicts).
//
// It holds no go-app, syscall/js or DOM code: it builds for the host and
// js/wasm and is tested on the host. Package app renders what it returns;
// the numbers themselves come from specdash/model.
package view

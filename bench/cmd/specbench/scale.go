//go:build !js

package main

import (
	"bufio"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	scaleFlag        = flag.String("scale", "16,256,1024,4096", "scale part: engine counts (SPECDASH_BENCH_SCALE)")
	scaleWindowsFlag = flag.String("scale-windows", "6h,7d", "scale part: windows (SPECDASH_BENCH_SCALE_WINDOWS)")
)

// scaleErr matches BenchmarkScale's log of a load that ended in the
// dashboard's error state.
var scaleErr = regexp.MustCompile(`specdash: .*? state ("error: (?:[^"\\]|\\.)*"), /prom`)

// scaleInnerErr is the message of a Prometheus API error answer that the
// page's error quotes.
var scaleInnerErr = regexp.MustCompile(`"error":"([^"]*)"`)

// scaleBench runs BenchmarkScale (bench/scale_test.go) and gives, per
// window and fleet size, the time to the live dashboard against the
// Prometheus UI, the bytes the browser read, the first load's parts and
// `specdash report`'s time. The goals (the fleet-scale issue), at 1,024
// engines x 6 h: live dashboard within 1.5x the Prometheus UI's time, and
// at most 2x the bytes read at 16 engines.
func scaleBench(env []string) ([]row, error) {
	args := []string{"-run", "^$", "-bench", "^BenchmarkScale$", "-benchtime=1x", "-timeout", "180m", "-v", "./bench/"}
	vars := "SPECDASH_BENCH_SCALE=" + *scaleFlag + " SPECDASH_BENCH_SCALE_WINDOWS=" + *scaleWindowsFlag
	env = append(env, strings.Fields(vars)...)
	out, err := goTest(env, args...)
	if err != nil {
		return nil, err
	}
	m := metrics(out)
	// The error message of each sub-benchmark whose page failed.
	errs := map[string]string{}
	cur := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "BenchmarkScale/") {
			cur = strings.Fields(l)[0]
		}
		if e := scaleErr.FindStringSubmatch(l); e != nil && cur != "" {
			msg, err := strconv.Unquote(e[1])
			if err != nil {
				msg = e[1]
			}
			msg = strings.Join(strings.Fields(strings.TrimPrefix(msg, "error: ")), " ")
			// The source's own message, when the page quotes its answer.
			if inner := scaleInnerErr.FindStringSubmatch(msg); inner != nil {
				msg = inner[1]
			}
			errs[cur] = strings.ReplaceAll(msg, "|", "/")
		}
	}
	cmd := "make build && SPECDASH_BENCH_RUNS=" + strconv.Itoa(*runsFlag) + " " + vars + " go test " + shellJoin(args)
	var rows []row
	for _, w := range strings.Split(*scaleWindowsFlag, ",") {
		w = strings.TrimSpace(w)
		var base float64 // bytes at the smallest size
		for _, n := range strings.Split(*scaleFlag, ",") {
			n = strings.TrimSpace(n)
			name := "BenchmarkScale/" + w + "/" + n
			v := map[string]float64{}
			for _, u := range []string{"live-ms", "promui-ms", "ratio", "prom-bytes", "prom-decoded-bytes", "prom-requests", "doc-bytes", "promui-bytes", "report-ms", "samples", "scrape-s"} {
				x, err := get(m, name, u)
				if err != nil {
					return rows, err
				}
				v[u] = x
			}
			v["live-error"], _ = get(m, name, "live-error")
			if base == 0 {
				base = v["prom-bytes"]
			}
			what := fmt.Sprintf("scale, %s engines × 8 positions (8 per instance), %s window, %.0f s scrape (%.1f M samples in the window)", n, w, v["scrape-s"], v["samples"]/1e6)
			goal := n == "1024" && w == "6h"
			live := fmt.Sprintf("%.0f ms / %.0f ms = **%.2f×**", v["live-ms"], v["promui-ms"], v["ratio"])
			budget := ""
			e, failed := errs[name]
			failed = failed || v["live-error"] > 0
			if failed {
				live = fmt.Sprintf("**error** after %.0f ms (%s) / %.0f ms", v["live-ms"], e, v["promui-ms"])
				if goal {
					budget = "≤ 1.5× Prometheus UI: **missed**"
				}
			} else if goal {
				budget = "≤ 1.5× Prometheus UI: " + ok(v["ratio"] <= 1.5)
			}
			rows = append(rows, row{"", what + ": time to the live dashboard, cold / Prometheus UI's graph", live, budget, cmd})
			budget = ""
			if goal {
				budget = fmt.Sprintf("≤ 2× the bytes at %s engines: ", strings.TrimSpace(strings.Split(*scaleFlag, ",")[0])) + ok(v["prom-bytes"] <= 2*base && !failed)
				if failed {
					budget += " (the load failed)"
				}
			}
			rows = append(rows, row{"", what + ": bytes the browser read from /prom (as sent) / Prometheus UI",
				fmt.Sprintf("**%s** in %.0f requests (%s decoded; %.2f× the smallest size); page %.0f kB / %.1f kB", mb(int64(v["prom-bytes"])), v["prom-requests"], mb(int64(v["prom-decoded-bytes"])), v["prom-bytes"]/base, v["doc-bytes"]/1e3, v["promui-bytes"]/1e3),
				budget, cmd})
			if q, err := get(m, name, "query-ms"); err == nil {
				d, _ := get(m, name, "decode-ms")
				c, _ := get(m, name, "compute-ms")
				r, _ := get(m, name, "render-ms")
				rows = append(rows, row{"", what + ": the page's first load", fmt.Sprintf("query %.0f + decode %.0f + compute %.0f + render %.0f ms", q, d, c, r), "", cmd})
			}
			if rb, err := get(m, name, "host-raw-bytes"); err == nil {
				rms, _ := get(m, name, "host-raw-ms")
				sb, _ := get(m, name, "host-shaped-bytes")
				sms, _ := get(m, name, "host-shaped-ms")
				val := fmt.Sprintf("%s in %.0f ms / **%s** in %.0f ms", mb(int64(rb)), rms, mb(int64(sb)), sms)
				if fb, _ := get(m, name, "host-shaped-fallback"); fb > 0 {
					val += " (the shaped read fell back to the raw path: see the benchmark's log)"
				}
				rows = append(rows, row{"", what + ": the window read in Go straight from Prometheus (gzip), raw path (Client.Fetch) / shaped (Client.FetchShapedAuto)", val, "", cmd})
			}
			rows = append(rows, row{"", what + ": `specdash report --format=json` over the window", fmt.Sprintf("%.0f ms", v["report-ms"]), "", cmd})
		}
	}
	return rows, nil
}

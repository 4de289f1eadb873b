//go:build !js

package bench

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"

	"specdash/internal/promtest"
	"specdash/simulate"
)

// A fleet data set of BenchmarkScale: engines engines of one model, 8 per
// instance (labels instance="host-NNNN:8000", engine="0".."7"), k = 8,
// the three totals and eight per-position counters per engine (11 series
// per engine, no _created, like the 16-engine case), scraped every scrape
// over a window plus margins:
//
//	[base - window - 15m, base + 1h], base = the creation time truncated to 30 min,
//
// so a data set serves any run whose live window [now - window - lookback,
// now] lies within it (cached under scaleCacheRoot, found again by
// scaleCached for about 45-75 minutes after it was written).
type scaleSet struct {
	engines int
	window  time.Duration
	scrape  time.Duration
	// latency: vLLM's latency, output and load families too
	// (SPECDASH_BENCH_LATENCY=1, as in the case data: latencyOpenMetrics).
	latency bool
}

// perEngine is the number of series per engine: the spec-decode
// counters, and with latency the inter-token latency histogram (its
// buckets, +Inf, _sum and _count), the output tokens and running requests.
func (s scaleSet) perEngine() int {
	if s.latency {
		return 3 + scaleK + len(simulate.InterTokenLatencyBoundsMs) + 3 + 2
	}
	return 3 + scaleK
}

// scaleEnginesPerInstance and scaleK shape the fleet: vLLM runs one engine
// per data-parallel rank of a process; 8 per instance (one per GPU).
const (
	scaleEnginesPerInstance = 8
	scaleK                  = 8
)

// scrapeFor is the scrape interval of a window's data set: 15 s up to a
// day; 5 min for longer windows (a 7 d window at 15 s would be 1.8 G
// samples at 4,096 engines, far too many to write here; the dashboard's
// step at 7 d is 30 min anyway).
func scrapeFor(window time.Duration) time.Duration {
	if window > 24*time.Hour {
		return 5 * time.Minute
	}
	return caseScrape
}

func (s scaleSet) String() string {
	l := ""
	if s.latency {
		l = ", with latency families"
	}
	return fmt.Sprintf("%d engines, %s window, %s scrape%s", s.engines, fmtWindow(s.window), s.scrape, l)
}

// samples is the number of samples the set holds.
func (s scaleSet) samples(from, to time.Time) int64 {
	return int64(s.engines) * int64(s.perEngine()) * (int64(to.Sub(from)/s.scrape) + 1)
}

// scaleCacheRoot holds the written data sets across runs (one directory per
// set and time range); sets that no run can use any more are deleted.
func scaleCacheRoot() string {
	return filepath.Join(os.TempDir(), "specdash-bench-scale")
}

// cachePrefix starts the name of a cached data set's directory (then
// its first and last Unix second).
func (s scaleSet) cachePrefix() string {
	p := fmt.Sprintf("e%d-w%d-s%d-", s.engines, int64(s.window/time.Second), int64(s.scrape/time.Second))
	if s.latency {
		p += "l1-"
	}
	return p
}

// scaleCached returns the directory of a written data set that covers
// [from, to], if any.
func scaleCached(s scaleSet, from, to time.Time) string {
	ents, _ := os.ReadDir(scaleCacheRoot())
	prefix := s.cachePrefix()
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		a, b, ok := strings.Cut(rest, "-")
		t0, err1 := strconv.ParseInt(a, 10, 64)
		t1, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			continue
		}
		dir := filepath.Join(scaleCacheRoot(), e.Name())
		if _, err := os.Stat(filepath.Join(dir, "complete")); err != nil {
			continue
		}
		if t0 <= from.Unix() && t1 >= to.Unix() {
			return dir
		}
	}
	return ""
}

// scaleData returns a directory of TSDB blocks holding s over a range that
// covers the live window ending now (plus 10 minutes either side), writing
// it when no cached one does. Blocks are written with tsdb.BlockWriter of
// prometheus/prometheus (what `promtool tsdb create-blocks-from` and
// embedded.BackfillOpenMetrics use, without the text format: promtool
// parses its whole input once per block range, minutes for the larger
// sets), one block per aligned 6 h (24 h for windows over a day).
func scaleData(b *testing.B, s scaleSet) string {
	b.Helper()
	now := time.Now()
	need0, need1 := now.Add(-s.window-10*time.Minute), now.Add(10*time.Minute)
	if dir := scaleCached(s, need0, need1); dir != "" {
		b.Logf("%s: cached data %s", s, dir)
		return dir
	}
	root := scaleCacheRoot()
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	// Drop sets that ended before now: no run can use them.
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		f := strings.Split(e.Name(), "-")
		if t1, err := strconv.ParseInt(f[len(f)-1], 10, 64); err == nil && t1 < now.Unix() {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
	base := now.Truncate(30 * time.Minute)
	from := base.Add(-s.window - 15*time.Minute).Truncate(s.scrape)
	to := base.Add(time.Hour)
	dir := filepath.Join(root, fmt.Sprintf("%s%d-%d", s.cachePrefix(), from.Unix(), to.Unix()))
	os.RemoveAll(dir)
	t0 := time.Now()
	if err := writeScaleBlocks(dir, s, from, to); err != nil {
		os.RemoveAll(dir)
		b.Fatalf("%s: write blocks: %v", s, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: wrote %d samples in %s to %s", s, s.samples(from, to), time.Since(t0).Round(time.Second), dir)
	return dir
}

// writeScaleBlocks writes the samples of s in [from, to] into dir, one
// BlockWriter per aligned block range. Values: per engine and scrape,
// 150-250 drafts per 15 s (scaled to the scrape interval), draft tokens
// k per draft, accepted at position i about drafts x p^(i+1) with p
// 0.75-0.825 by engine, as caseOpenMetrics; each engine's counters start at
// 0 at from (no restart).
func writeScaleBlocks(dir string, s scaleSet, from, to time.Time) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	block := 6 * time.Hour
	if s.window > 24*time.Hour {
		block = 24 * time.Hour
	}
	n := int(to.Sub(from)/s.scrape) + 1
	step := s.scrape.Milliseconds()
	t0 := from.UnixMilli()
	perScrape := float64(s.scrape) / float64(15*time.Second)
	type state struct {
		drafts, draftTok, accTok float64
		pos                      [scaleK]float64
	}
	bounds := simulate.InterTokenLatencyBoundsMs
	per := s.perEngine()
	// One seeded generator per engine: the next scrape's values.
	gen := func(e int) func() state {
		r := rand.New(rand.NewSource(int64(e) + 1))
		var st state
		return func() state {
			cur := st
			d := float64(int((150 + float64(r.Intn(100))) * perScrape))
			st.drafts += d
			st.draftTok += d * scaleK
			p := 0.75 + 0.1*float64(e%4)/4
			acc := 0.0
			for i := range scaleK {
				a := float64(int(d * pow(p, i+1) * (0.9 + 0.2*r.Float64())))
				st.pos[i] += a
				acc += a
			}
			st.accTok += acc
			return cur
		}
	}
	logger := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	blockMs := block.Milliseconds()
	// Generators advance block by block, so they persist across blocks.
	gens := make([]func() state, s.engines)
	for e := range gens {
		gens[e] = gen(e)
	}
	series := func(e int) []labels.Labels {
		inst := fmt.Sprintf("host-%04d:8000", e/scaleEnginesPerInstance)
		eng := strconv.Itoa(e % scaleEnginesPerInstance)
		mk := func(name string, extra ...string) labels.Labels {
			kv := append([]string{"__name__", name, "engine", eng, "instance", inst, "job", "vllm", "model_name", "bench-model"}, extra...)
			return labels.FromStrings(kv...)
		}
		ls := []labels.Labels{
			mk("vllm:spec_decode_num_drafts_total"),
			mk("vllm:spec_decode_num_draft_tokens_total"),
			mk("vllm:spec_decode_num_accepted_tokens_total"),
		}
		for i := range scaleK {
			ls = append(ls, mk("vllm:spec_decode_num_accepted_tokens_per_pos_total", "position", strconv.Itoa(i)))
		}
		if s.latency {
			const itl = "vllm:inter_token_latency_seconds"
			for _, ub := range bounds {
				ls = append(ls, mk(itl+"_bucket", "le", strconv.FormatFloat(float64(ub)/1000, 'g', -1, 64)))
			}
			ls = append(ls, mk(itl+"_bucket", "le", "+Inf"), mk(itl+"_sum"), mk(itl+"_count"),
				mk("vllm:generation_tokens_total"), mk("vllm:num_requests_running"))
		}
		return ls
	}
	lss := make([][]labels.Labels, s.engines)
	cum := make([][]float64, s.engines)
	mean := make([]float64, s.engines)
	for e := range lss {
		lss[e] = series(e)
		cum[e], mean[e] = latencyShape(0.75+0.1*float64(e%4)/4, scaleK)
	}
	vals := make([]float64, per)
	j := 0
	for j < n {
		ts := t0 + int64(j)*step
		end := (ts/blockMs + 1) * blockMs // exclusive end of this block range
		w, err := tsdb.NewBlockWriter(logger, dir, blockMs)
		if err != nil {
			return err
		}
		jEnd := j
		refs := make([][]storage.SeriesRef, s.engines) // per head
		for e := range refs {
			refs[e] = make([]storage.SeriesRef, per)
		}
		for jEnd < n && t0+int64(jEnd)*step < end {
			jEnd++
		}
		// In time order (the head takes samples at most half a block
		// behind its newest), one commit per scrape.
		for jj := j; jj < jEnd; jj++ {
			t := t0 + int64(jj)*step
			app := w.Appender(ctx)
			for e := range s.engines {
				st := gens[e]()
				vals = append(vals[:0], st.drafts, st.draftTok, st.accTok)
				vals = append(vals, st.pos[:]...)
				if s.latency {
					for b := range bounds {
						vals = append(vals, math.Floor(st.drafts*cum[e][b]))
					}
					vals = append(vals, st.drafts, st.drafts*mean[e], st.drafts, st.drafts+st.accTok, float64(8+(e+jj)%5))
				}
				for i, ls := range lss[e] {
					ref, err := app.Append(refs[e][i], ls, t, vals[i])
					if err != nil {
						app.Rollback()
						w.Close()
						return err
					}
					refs[e][i] = ref
				}
			}
			if err := app.Commit(); err != nil {
				w.Close()
				return err
			}
		}
		if _, err := w.Flush(ctx); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		j = jEnd
	}
	return nil
}

// startScalePrometheus runs Prometheus 2.42 over a copy of a data set.
func startScalePrometheus(b *testing.B, s scaleSet) *promtest.Server {
	b.Helper()
	dir := copyDir(b, scaleData(b, s))
	os.Remove(filepath.Join(dir, "complete"))
	return promtest.Start(b, promtest.Options{DataDir: dir, ScrapeInterval: s.scrape})
}

// fmtWindow writes 6h, 24h or 7d.
func fmtWindow(d time.Duration) string {
	if d >= 24*time.Hour && d%(24*time.Hour) == 0 && d > 24*time.Hour {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return strconv.Itoa(int(d/time.Hour)) + "h"
}

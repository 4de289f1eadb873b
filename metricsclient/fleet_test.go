package metricsclient

import (
	"bufio"
	"fmt"
	"io"
	"sort"

	"specdash/compute"
)

// A fleet of simulated vLLM engines for the shaped-read tests: several
// engines per instance, two models, k of 2, 3 and 8 (mixed within a
// model), one sample every fleetScrape seconds, and a few engines that
// restart, join, leave or export no _created gauge. The generator knows
// every true increase (fleetTruth).

const (
	fleetScrape  = 15 // seconds between samples
	fleetStep    = 30 // grid step, seconds
	fleetBuckets = 20 // grid buckets
	fleetPerInst = 8  // engines per instance
)

// fleetEngine is one engine: its labels, k, whether it exports _created,
// and its processes (a restart starts a new one).
type fleetEngine struct {
	idx                 int
	inst, engine, model string
	k                   int
	noCreated           bool
	procs               []fleetProc
	// gap: no samples strictly between gap[0] and gap[1] (the counters
	// go on counting; a scrape outage).
	gap [2]int64
}

// fleetProc is one process of an engine: created at created (Unix
// seconds), sampled from sample time from to to (inclusive), its counters
// starting at offset (a burst counted between its start and first
// sample) plus one increment per scrape.
type fleetProc struct {
	created  float64
	from, to int64
	offset   int64
}

// The scenario engines (index into the fleet), relative to the grid start.
const (
	scRestartAligned = 8*1 + 0 // restart whose last old sample is on a step point
	scRestartBetween = 8*2 + 1 // restart between two step points
	scRestartHigher  = 8*3 + 2 // restart whose first value is above the old one
	scJoin           = 8*4 + 3 // starts inside the window
	scLeave          = 8*5 + 4 // stops inside the window
	scNoCreated      = 8*6 + 5 // exports no _created
	scOutageRestart  = 8*8 + 6 // not scraped for longer than the lookback, restarted meanwhile with a higher value
	scJoinNoCreated  = 8*8 + 2 // starts inside the window, between step points, without _created

	// Restarts at the edges of the detection's ranges (detectionQuery;
	// the lookback W is 300 s, the step s 30 s): not scraped for longer
	// than W but less than W + s, for exactly W + s (its last old sample
	// on the edge of a range that is closed in Prometheus 2 and open in
	// Prometheus 3 and VictoriaMetrics), for exactly W, and one restarted
	// at the window's start.
	scGapRestart     = 8*1 + 3
	scGapEdgeRestart = 8*2 + 6
	scGapWRestart    = 8*3 + 4
	scRestartAtStart = 8*4 + 1
)

// fleet returns n engines (n a multiple of fleetPerInst, at least 72 so
// that every scenario is present) over samples from gs-300 to ge (Unix
// seconds; gs, ge the grid's start and end).
func fleet(n int, gs int64) []fleetEngine { return fleetNamed(n, gs, "m-a", "m-b") }

// fleetNamed is fleet with the models named a and b.
func fleetNamed(n int, gs int64, a, b string) []fleetEngine {
	ge := gs + fleetStep*fleetBuckets
	first := gs - 300
	out := make([]fleetEngine, n)
	for i := range out {
		inst := i / fleetPerInst
		e := fleetEngine{idx: i, inst: fmt.Sprintf("i%03d", inst), engine: fmt.Sprint(i % fleetPerInst), model: a, k: 3}
		if inst%2 == 1 {
			e.model, e.k = b, 2
		}
		if inst == 5 {
			e.k = 2 // mixed k within m-a
		}
		if inst%16 == 6 && i%fleetPerInst == 7 {
			e.k = 8
		}
		e.procs = []fleetProc{{created: float64(gs - 3600), from: first, to: ge, offset: int64(1000 + i)}}
		// restarted: a first process sampled until oldTo (counters from
		// oldOffset), then one created at created, sampled from from on.
		restarted := func(oldTo, oldOffset int64, created float64, from, offset int64) []fleetProc {
			return []fleetProc{{created: float64(gs - 3600), from: first, to: oldTo, offset: oldOffset},
				{created: created, from: from, to: ge, offset: offset}}
		}
		switch i {
		case scRestartAligned:
			e.procs = restarted(gs+120, 5000, float64(gs+125), gs+135, 3)
		case scRestartBetween:
			e.procs = restarted(gs+195, 5000, float64(gs+200), gs+210, 2)
		case scRestartHigher:
			e.procs = restarted(gs+255, 10, float64(gs)+257.5, gs+270, 900000)
		case scJoin:
			e.procs = []fleetProc{{created: float64(gs + 290), from: gs + 300, to: ge, offset: 4}}
		case scLeave:
			e.procs[0].to = gs + 405
		case scNoCreated:
			e.noCreated = true
		case scJoinNoCreated:
			// Its start is unknown to the reader: the truth counts from its
			// first sample on.
			e.noCreated = true
			e.procs = []fleetProc{{created: float64(gs - 10), from: gs + 315, to: ge, offset: 40}}
		case scGapRestart:
			e.procs = restarted(gs+90, 5000, float64(gs+400), gs+405, 7)
		case scGapEdgeRestart:
			e.procs = restarted(gs+90, 5000, float64(gs+410), gs+420, 7)
		case scGapWRestart:
			e.procs = restarted(gs+90, 5000, float64(gs+385), gs+390, 7)
		case scRestartAtStart:
			e.procs = restarted(gs-15, 5000, float64(gs-5), gs, 7)
		case scOutageRestart:
			e.procs = restarted(gs+150, 10, float64(gs+500), gs+510, 700000)
		}
		out[i] = e
	}
	return out
}

// fleetInc is the increment of an engine's drafts at sample time t (a
// few per scrape, varying).
func fleetInc(i int, t int64) int64 { return 10 + (int64(i)*7+t/fleetScrape*13)%20 }

// fleetValues returns the counters of engine i at sample t of process p:
// drafts, draft tokens, accepted tokens and accepted per position.
func fleetValues(e fleetEngine, p fleetProc, t int64) (d, dt, acc int64, pp []int64) {
	i := e.idx
	pp = make([]int64, e.k)
	for s := p.from; s <= t; s += fleetScrape {
		x := fleetInc(i, s)
		if s == p.from {
			x += p.offset
		}
		d += x
		dt += x * int64(e.k)
		a := x
		for j := range e.k {
			a = a * (60 + int64(i%7)) / 100
			pp[j] += a
			acc += a
		}
	}
	return d, dt, acc, pp
}

// writeFleetOM writes the fleet as OpenMetrics (timestamps in seconds) to w.
func writeFleetOM(w io.Writer, engines []fleetEngine) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	type sample struct {
		t     int64
		proc  fleetProc
		d, dt int64
		acc   int64
		pp    []int64
	}
	all := make([][]sample, len(engines))
	for i, e := range engines {
		for _, p := range e.procs {
			for t := p.from; t <= p.to; t += fleetScrape {
				if t > e.gap[0] && t < e.gap[1] {
					continue
				}
				d, dt, acc, pp := fleetValues(e, p, t)
				all[i] = append(all[i], sample{t: t, proc: p, d: d, dt: dt, acc: acc, pp: pp})
			}
		}
	}
	lbl := func(e fleetEngine) string {
		return fmt.Sprintf(`instance="%s",engine="%s",model_name="%s"`, e.inst, e.engine, omEscape(e.model))
	}
	fams := []struct {
		name string
		v    func(s sample) int64
	}{
		{"vllm:spec_decode_num_drafts", func(s sample) int64 { return s.d }},
		{"vllm:spec_decode_num_draft_tokens", func(s sample) int64 { return s.dt }},
		{"vllm:spec_decode_num_accepted_tokens", func(s sample) int64 { return s.acc }},
	}
	for _, f := range fams {
		fmt.Fprintf(bw, "# TYPE %s counter\n", f.name)
		for i, e := range engines {
			for _, s := range all[i] {
				fmt.Fprintf(bw, "%s_total{%s} %d %d\n", f.name, lbl(e), f.v(s), s.t)
			}
			if e.noCreated {
				continue
			}
			for _, s := range all[i] {
				fmt.Fprintf(bw, "%s_created{%s} %s %d\n", f.name, lbl(e), fmtSec(s.proc.created), s.t)
			}
		}
	}
	const pp = "vllm:spec_decode_num_accepted_tokens_per_pos"
	fmt.Fprintf(bw, "# TYPE %s counter\n", pp)
	for i, e := range engines {
		for j := range e.k {
			for _, s := range all[i] {
				fmt.Fprintf(bw, "%s_total{%s,position=\"%d\"} %d %d\n", pp, lbl(e), j, s.pp[j], s.t)
			}
			if e.noCreated {
				continue
			}
			for _, s := range all[i] {
				fmt.Fprintf(bw, "%s_created{%s,position=\"%d\"} %s %d\n", pp, lbl(e), j, fmtSec(s.proc.created), s.t)
			}
		}
	}
	fmt.Fprintln(bw, "# EOF")
	return bw.Flush()
}

func fmtSec(v float64) string { return fmt.Sprintf("%.3f", v) }

// fleetTruthSeries returns, per engine, step-aligned cumulative series of
// the true increases over the grid (gs, ge] at step fleetStep: each sample
// counts its increase over the process' previous sample, or its whole
// value when it is a process' first sample and the process was created
// after gs. Each series starts at the engine's first grid point (gs when
// it has a sample within the lookback before it) with Created gs+1 (ms)
// when later, so that compute.Aggregate of them gives the true groups.
// Labels as the source's (instance, engine, model_name).
func fleetTruthSeries(engines []fleetEngine, gs int64) []compute.Series {
	g := compute.Grid{Start: gs * 1000, End: (gs + fleetStep*fleetBuckets) * 1000, Step: fleetStep * 1000}
	n := g.Buckets()
	var out []compute.Series
	for _, e := range engines {
		incs := make([][]float64, 3+e.k) // per family (3 + positions), per bucket
		for f := range incs {
			incs[f] = make([]float64, n)
		}
		firstT := int64(-1)
		lastT := int64(0)
		for _, p := range e.procs {
			var pd, pdt, pacc int64
			ppPrev := make([]int64, e.k)
			for s := p.from; s <= p.to; s += fleetScrape {
				if s > e.gap[0] && s < e.gap[1] {
					continue
				}
				d, dt, acc, pp := fleetValues(e, p, s)
				if s > gs {
					j := (s - gs - 1) / fleetStep
					counted := s > p.from || p.created > float64(gs)
					if counted {
						incs[0][j] += float64(d - pd)
						incs[1][j] += float64(dt - pdt)
						incs[2][j] += float64(acc - pacc)
						for q := range e.k {
							incs[3+q][j] += float64(pp[q] - ppPrev[q])
						}
					}
				}
				if s > gs-300 || s == gs-300 {
					if firstT < 0 {
						firstT = s
					}
					lastT = s
				}
				pd, pdt, pacc, ppPrev = d, dt, acc, pp
			}
		}
		// The engine's first and last grid points: the first at or after
		// its first sample (gs when that lies within the lookback before
		// gs), the last at most 5 minutes after its last sample.
		firstIdx := int64(0)
		if firstT > gs {
			firstIdx = (firstT - gs + fleetStep - 1) / fleetStep
		}
		lastIdx := min(int64(n), (lastT+300-gs)/fleetStep)
		labels := map[string]string{"instance": e.inst, "engine": e.engine, "model_name": e.model}
		for f := range incs {
			s := compute.Series{Family: compute.Family(min(f, 3)), Position: -1, Labels: labels}
			if f >= 3 {
				s.Position = f - 3
			}
			if firstIdx > 0 {
				s.Created = g.Start + 1
			}
			sum := 0.0
			for idx := int64(0); idx <= lastIdx; idx++ {
				if idx > 0 {
					sum += incs[f][idx-1]
				}
				if idx >= firstIdx {
					s.Points = append(s.Points, compute.Point{T: g.Start + idx*g.Step, V: sum})
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// fleetFilter is a filter selecting the instances of the given engine
// indices' instances.
func fleetInstances(engines []fleetEngine, idx ...int) Filter {
	seen := map[string]bool{}
	for _, i := range idx {
		seen[engines[i].inst] = true
	}
	vals := make([]string, 0, len(seen))
	for v := range seen {
		vals = append(vals, v)
	}
	sort.Strings(vals)
	return Filter{Name: "instance", Values: vals}
}

// selectEngines keeps the engines matching f (instance filter only).
func selectEngines(engines []fleetEngine, f Filter) []fleetEngine {
	var out []fleetEngine
	for _, e := range engines {
		for _, v := range f.Values {
			if e.inst == v {
				out = append(out, e)
			}
		}
	}
	return out
}

package model

import (
	"context"
	"fmt"
	"runtime/debug"

	"specdash/compute"
	"specdash/metricsclient"
)

// pending is a read running in its own goroutine, started as soon as what
// it needs is known so that its round trip overlaps the others' and the
// computing (Compute: the gap check's sample counts and the latency
// families, both needing only the schema, start with the load, for the
// schema it most likely reads). wait returns its result. A panic in the
// read becomes its error: a panic in a goroutine would end the program
// (the page's wasm, or the server of every viewer). A read whose result
// is not waited for (the load failed, or found another schema) runs to
// its end, bounded by the load's context.
type pending[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// startRead runs read in a goroutine.
func startRead[T any](read func() (T, error)) *pending[T] {
	p := &pending[T]{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer func() {
			if r := recover(); r != nil {
				p.err = fmt.Errorf("internal error: %v\n%s", r, debug.Stack())
			}
		}()
		p.v, p.err = read()
	}()
	return p
}

// wait blocks until the read has returned.
func (p *pending[T]) wait() (T, error) {
	<-p.done
	return p.v, p.err
}

// startSampleCounts starts the gap check's read of the sample counts per
// bucket of schema s's selection (addIrregular), or returns nil when there
// is nothing to check: no counters or fewer than 3 buckets. A live window
// that slid forward continues prev's read.
func startSampleCounts(ctx context.Context, src Source, s metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter, prev *metricsclient.Window) *pending[*metricsclient.SampleCounts] {
	if len(s.Metrics) == 0 || g.Buckets() < 3 {
		return nil
	}
	return startRead(func() (*metricsclient.SampleCounts, error) {
		return src.SchemaSampleCounts(ctx, s, g, filters, prev)
	})
}

// schemaReads are the reads of a load that need only its schema: the gap
// check's sample counts and the latency families.
type schemaReads struct {
	schema  metricsclient.Schema
	samples *pending[*metricsclient.SampleCounts]
	latency *pending[*metricsclient.OptionalFetch]
}

// startSchemaReads starts the reads of schema s, continuing prev's (the
// previous load's Window, which keeps its reads: keepReads) when the
// window slid forward.
func startSchemaReads(ctx context.Context, src Source, s metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter, prev *metricsclient.Window) schemaReads {
	return schemaReads{
		schema:  s,
		samples: startSampleCounts(ctx, src, s, g, filters, prev),
		latency: startOptional(ctx, src, s, g, filters, prev),
	}
}

// keepReads returns w with the results of reads that succeeded, for the
// next load to continue (metricsclient.Window.WithReads); nil stays nil.
func keepReads(w *metricsclient.Window, samples *pending[*metricsclient.SampleCounts], latency *pending[*metricsclient.OptionalFetch]) *metricsclient.Window {
	if w == nil {
		return nil
	}
	var (
		sc *metricsclient.SampleCounts
		of *metricsclient.OptionalFetch
	)
	if samples != nil {
		if v, err := samples.wait(); err == nil {
			sc = v
		}
	}
	if latency != nil {
		if v, err := latency.wait(); err == nil {
			of = v
		}
	}
	return w.WithReads(sc, of)
}

// likelySchema is the schema a load most likely reads: the previous load's
// (prev, a refresh), else the source's own (metricsclient.Client.Schema:
// the one it asks alongside Detect); false when neither is known.
func likelySchema(src Source, prev *metricsclient.Window) (metricsclient.Schema, bool) {
	if prev != nil {
		if s := prev.Schema(); len(s.Metrics) > 0 {
			return s, true
		}
	}
	if c, ok := src.(interface{ Schema() metricsclient.Schema }); ok {
		if s := c.Schema(); len(s.Metrics) > 0 {
			return s, true
		}
	}
	return metricsclient.Schema{}, false
}

// startOptional starts the read of schema s's latency families over g
// (addLatency), or returns nil when src cannot read them or s has none. A
// live window that slid forward continues prev's read.
func startOptional(ctx context.Context, src Source, s metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter, prev *metricsclient.Window) *pending[*metricsclient.OptionalFetch] {
	os, ok := src.(OptionalSource)
	roles := schemaLatencyRoles(s)
	if !ok || len(roles) == 0 {
		return nil
	}
	return startRead(func() (*metricsclient.OptionalFetch, error) {
		return os.FetchOptionalSummed(ctx, prev, s, g, filters, roles...)
	})
}

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
// families, both needing only the schema, start when the counters have
// been fetched). wait returns its result. A panic in the read becomes its
// error: a panic in a goroutine would end the program (the page's wasm,
// or the server of every viewer).
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

// sampleCounts is SchemaSampleCounts' answer.
type sampleCounts struct {
	counts   []float64
	warnings []string
}

// startSampleCounts starts the gap check's read of the selection's sample
// counts per bucket (addIrregular), or returns nil when there is nothing
// to check: no counters, no series, or fewer than 3 buckets.
func startSampleCounts(ctx context.Context, src Source, f *metricsclient.Fetched, g compute.Grid, filters []metricsclient.Filter) *pending[sampleCounts] {
	s := f.Schema()
	if len(s.Metrics) == 0 || len(f.Series) == 0 || g.Buckets() < 3 {
		return nil
	}
	return startRead(func() (sampleCounts, error) {
		c, w, err := src.SchemaSampleCounts(ctx, s, g, filters)
		return sampleCounts{c, w}, err
	})
}

// startOptional starts the read of schema s's latency families over g
// (addLatency), or returns nil when src cannot read them or s has none.
func startOptional(ctx context.Context, src Source, s metricsclient.Schema, g compute.Grid, filters []metricsclient.Filter) *pending[*metricsclient.OptionalFetch] {
	os, ok := src.(OptionalSource)
	roles := schemaLatencyRoles(s)
	if !ok || len(roles) == 0 {
		return nil
	}
	return startRead(func() (*metricsclient.OptionalFetch, error) {
		return os.FetchOptional(ctx, s, g, filters, roles...)
	})
}

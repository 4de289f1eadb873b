package simulate

import (
	"bytes"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"specdash/compute"
)

// NativeITLSchema is the schema of the simulated native inter-token latency
// histogram (Config.NativeHistograms): 3, bucket growth factor 2^(1/8) ≈
// 1.09, what client_golang picks for NativeHistogramBucketFactor 1.1.
const NativeITLSchema int32 = 3

// nativeZeroThreshold is client_golang's default zero bucket width
// (DefNativeHistogramZeroThreshold, 2^-128).
const nativeZeroThreshold = 2.938735877055719e-39

// nativeIndex returns the index of the bucket of schema that holds v > 0:
// v in (NativeBound(i-1), NativeBound(i)].
func nativeIndex(v float64, schema int32) int32 {
	i := int32(0)
	for compute.NativeBound(i, schema) < v {
		i++
	}
	for compute.NativeBound(i-1, schema) >= v {
		i--
	}
	return i
}

// NativeInterTokenLatency returns the native histogram the simulator
// exposes for these counts (Config.NativeHistograms): the same
// observations as InterTokenLatency (each draft that accepted exactly n
// tokens observed at StepLatencyMs(n)), as observations per bucket index
// of schema, their count and their sum in seconds.
func (c Counts) NativeInterTokenLatency(schema int32) (buckets map[int32]int64, count int64, sumSeconds float64) {
	k := len(c.AcceptedPerPosition)
	atLeast := func(n int) int64 {
		switch {
		case n == 0:
			return c.Drafts
		case n > k:
			return 0
		}
		return c.AcceptedPerPosition[n-1]
	}
	buckets = map[int32]int64{}
	var sumMs int64
	for n := 0; n <= k; n++ {
		exactly := atLeast(n) - atLeast(n+1)
		if exactly == 0 {
			continue
		}
		ms := StepLatencyMs(n)
		sumMs += exactly * ms
		count += exactly
		buckets[nativeIndex(float64(ms)/1000, schema)] += exactly
	}
	return buckets, count, float64(sumMs) / 1000
}

// nativeDTO is a native histogram in client_model's form: spans of
// consecutive indexes and the counts as deltas, as client_golang writes it.
func nativeDTO(buckets map[int32]int64, count int64, sum float64, schema int32, created time.Time) *dto.Histogram {
	idx := make([]int32, 0, len(buckets))
	for i := range buckets {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	h := &dto.Histogram{
		SampleCount:   proto.Uint64(uint64(count)),
		SampleSum:     proto.Float64(sum),
		Schema:        proto.Int32(schema),
		ZeroThreshold: proto.Float64(nativeZeroThreshold),
		ZeroCount:     proto.Uint64(0),
	}
	if !created.IsZero() {
		h.CreatedTimestamp = timestamppb.New(created)
	}
	var prevCount int64
	for j, i := range idx {
		switch {
		case j == 0:
			h.PositiveSpan = append(h.PositiveSpan, &dto.BucketSpan{Offset: proto.Int32(i), Length: proto.Uint32(1)})
		case i == idx[j-1]+1:
			*h.PositiveSpan[len(h.PositiveSpan)-1].Length++
		default:
			h.PositiveSpan = append(h.PositiveSpan, &dto.BucketSpan{Offset: proto.Int32(i - idx[j-1] - 1), Length: proto.Uint32(1)})
		}
		h.PositiveDelta = append(h.PositiveDelta, buckets[i]-prevCount)
		prevCount = buckets[i]
	}
	if len(idx) == 0 {
		// No observation yet: client_golang writes one empty span so that
		// the scraper still sees a native histogram.
		h.PositiveSpan = []*dto.BucketSpan{{Offset: proto.Int32(0), Length: proto.Uint32(0)}}
	}
	return h
}

// wantsProtobuf reports whether a scrape request negotiates the protobuf
// exposition (Prometheus run with --enable-feature=native-histograms asks
// for it first).
func wantsProtobuf(r *http.Request) bool {
	return expfmt.Negotiate(r.Header).FormatType() == expfmt.TypeProtoDelim
}

// protobufExposition is /metrics in the protobuf exposition
// (Config.NativeHistograms, for a scraper that asks for it): the text
// exposition's families parsed as they are, with the inter-token latency
// histogram as a native histogram (NativeITLSchema; no classic buckets and
// no _created gauge: its start is the histogram's created timestamp).
func (s *Simulator) protobufExposition() ([]byte, error) {
	// The counters' text and the histogram come from the same counts: a
	// tick between the two reads would make the histogram's observations
	// differ from the drafts in one scrape, so read again (a few times at
	// most) until the counts did not move around the text.
	var text []byte
	var ss []snap
	for try := 0; ; try++ {
		before := s.snapshot()
		text = s.metricsText()
		ss = s.snapshot()
		if try == 4 || sameCounts(before, ss) {
			break
		}
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("simulate: parsing own exposition: %w", err)
	}
	name := s.cfg.Prefix + "inter_token_latency_seconds"
	itl := &dto.MetricFamily{
		Name: proto.String(name), Help: proto.String("Histogram of inter-token latency in seconds."),
		Type: dto.MetricType_HISTOGRAM.Enum(),
	}
	for _, x := range ss {
		b, n, sum := x.c.NativeInterTokenLatency(NativeITLSchema)
		var created time.Time
		if !s.cfg.Multiprocess {
			created = time.UnixMilli(int64(x.created * 1000))
		}
		itl.Metric = append(itl.Metric, &dto.Metric{
			Label: []*dto.LabelPair{
				{Name: proto.String("engine"), Value: proto.String(x.engine)},
				{Name: proto.String("model_name"), Value: proto.String(x.model)},
			},
			Histogram: nativeDTO(b, n, sum, NativeITLSchema, created),
		})
	}
	fams[name] = itl
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	var out bytes.Buffer
	enc := expfmt.NewEncoder(&out, expfmt.NewFormat(expfmt.TypeProtoDelim))
	for _, n := range names {
		if err := enc.Encode(fams[n]); err != nil {
			return nil, fmt.Errorf("simulate: encoding %s: %w", n, err)
		}
	}
	return out.Bytes(), nil
}

// sameCounts reports whether two snapshots hold the same counts.
func sameCounts(a, b []snap) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i].c, b[i].c) {
			return false
		}
	}
	return true
}

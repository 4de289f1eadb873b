package embedded

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/exemplar"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
)

// hostileExpositions seed FuzzScrapeParse: what a broken or hostile target
// may send.
func hostileExpositions() []string {
	return []string{
		"# TYPE vllm:spec_decode_num_drafts counter\nvllm:spec_decode_num_drafts_total{engine=\"0\",model_name=\"m\"} 5\n",
		// A label value over the 4 KiB limit.
		"# TYPE x gauge\nx{model_name=\"" + strings.Repeat("x", 5<<10) + "\"} 1\n",
		"x NaN\ny +Inf\nz -Inf\n",
		"# TYPE c counter\nc_total -5\n",
		"# TYPE c counter\nc_total 1\nc_total 2\nc_total{a=\"1\"} 1\nc_total{a=\"1\"} 2\n",
		"# TYPE c counter\n# HELP c h\nc_total 1 1700000000.5\nc_created 1700000000\n# EOF\n",
		"# TYPE c counter\nc 3\n",
		"x{l=\"\xff\xfe\"} 1\n\xffy 2\n",
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 0\nh_count 1\nh_sum NaN\n",
		"# TYPE h histogram\nh_bucket{le=\"x\"} 1\nh_bucket 2\n# EOF\n",
		"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_count -1\ns_sum 1e308\n",
		"x{a=\"1\",a=\"2\"} 1\n",
		"{\"quoted.name\",\"a\"=\"1\"} 1\n",
		"x 1 -9223372036854775808\nx 1 9223372036854775807\n",
		"# TYPE x gauge\nx 1 # {trace_id=\"abc\"} 1 1\n# EOF\n",
		"# EOF\nx 1\n",
		"",
		"\x00\x01\x02",
	}
}

// FuzzScrapeParse feeds bytes to Prometheus' exposition parsers as the
// embedded scrape loop does (textparse.New by Content-Type, text 0.0.4
// fallback; Next, Series/Histogram, Labels, Exemplar, StartTimestamp) and
// appends the samples through the engine's limitedAppender into a TSDB.
// Besides not panicking, no label name or value may be longer than the
// body plus a suffix: that is what makes Config.BodySizeLimit (at most
// MaxBodySizeLimit) a bound on label size.
func FuzzScrapeParse(f *testing.F) {
	for _, s := range hostileExpositions() {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	db, err := tsdb.Open(f.TempDir(), nil, nil, tsdb.DefaultOptions(), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	app := limitedAppendable{db: db, limit: 100_000, log: slog.New(slog.DiscardHandler)}
	types := []string{
		"text/plain; version=0.0.4",
		"application/openmetrics-text; version=1.0.0",
		"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited",
		"text/html",
	}
	f.Fuzz(func(t *testing.T, b []byte, ct uint8) {
		p, err := textparse.New(b, types[int(ct)%len(types)], labels.NewSymbolTable(), textparse.ParserOptions{
			FallbackContentType: "text/plain; version=0.0.4",
		})
		if p == nil {
			if err == nil {
				t.Fatal("no parser and no error")
			}
			return
		}
		panics0 := panicCount("scrape")
		a := app.AppenderV2(context.Background())
		defer a.Rollback()
		var lset labels.Labels
		var ex exemplar.Exemplar
		for n := 0; ; n++ {
			if n > len(b)+1 {
				t.Fatalf("%d entries from %d bytes", n, len(b))
			}
			e, err := p.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				break
			}
			var v float64
			var ts *int64
			var h *histogram.Histogram
			var fh *histogram.FloatHistogram
			switch e {
			case textparse.EntrySeries:
				_, ts, v = p.Series()
			case textparse.EntryHistogram:
				_, ts, h, fh = p.Histogram()
			default:
				continue
			}
			p.Labels(&lset)
			lset.Range(func(l labels.Label) {
				if len(l.Name) > len(b)+16 || len(l.Value) > len(b)+16 {
					t.Fatalf("label %.40q=%.40q (%d, %d bytes) from a body of %d bytes", l.Name, l.Value, len(l.Name), len(l.Value), len(b))
				}
			})
			for p.Exemplar(&ex) {
			}
			_ = p.StartTimestamp()
			var tms int64 = 1
			if ts != nil {
				tms = *ts
			}
			_, _ = a.Append(0, lset, 0, tms, v, h, fh, storage.AppendV2Options{})
		}
		if err := a.Commit(); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatal(err)
		}
		if n := panicCount("scrape") - panics0; n != 0 {
			t.Fatalf("%v panics recovered in the TSDB append", n)
		}
	})
}

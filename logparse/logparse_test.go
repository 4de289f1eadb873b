package logparse

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"specdash/compute"
)

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// afterMarker returns the line from its marker on.
func afterMarker(line string) string {
	if i := strings.Index(line, markerV1); i >= 0 {
		return line[i:]
	}
	return line[strings.Index(line, markerV0):]
}

// TestSeedLines parses the eight log lines of vLLM PR 16665's review thread
// (testdata/seed_000.log; docs/METRICS.md "Known answers"): 2025 form, mean
// length without the bonus token.
// Re-derived with compute.Derive(WithoutBonus), each prints exactly as vLLM
// printed it.
func TestSeedLines(t *testing.T) {
	text := readTestdata(t, "seed_000.log")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	res := Parse(text)
	if len(res.Problems) != 0 {
		t.Fatalf("problems: %+v", res.Problems)
	}
	if len(res.Entries) != 8 || res.Lines != 8 {
		t.Fatalf("%d entries of %d lines, want 8", len(res.Entries), res.Lines)
	}
	times := []string{"04-16 09:49:04", "04-16 09:49:14", "04-16 09:49:24", "04-16 09:49:34", "04-16 09:49:44", "04-16 09:49:54", "04-16 09:50:04", "04-23 22:03:06"}
	for i, e := range res.Entries {
		if e.Line != i+1 || e.Time != times[i] || e.Format != Format2025 || e.Convention != compute.WithoutBonus || e.Engine != "" || e.Container != "" {
			t.Errorf("line %d: %+v", i+1, e)
		}
		if !e.Derived.Drafts || !e.Derived.PerPosition || e.Derived.Seconds || e.Derived.Window {
			t.Errorf("line %d: derived %+v", i+1, e.Derived)
		}
		if len(e.Notes) != 0 {
			t.Errorf("line %d: notes %q", i+1, e.Notes)
		}
		if v := compute.Check(e.Counts); v != nil {
			t.Errorf("line %d: %+v violates %q", i+1, e.Counts, v)
		}
		if got := compute.FormatLegacyLogLine(compute.Derive(e.Counts, 10, compute.WithoutBonus)); got != afterMarker(lines[i]) {
			t.Errorf("line %d re-derived:\n got %s\nwant %s", i+1, got, afterMarker(lines[i]))
		}
	}
	// First line by hand: k = 4, drafts = 2384 / 4 = 596;
	// per position round(0.576·596 = 343.296) = 343, round(0.327·596 =
	// 194.892) = 195, round(0.159·596 = 94.764) = 95, round(0.089·596 =
	// 53.044) = 53; 343 + 195 + 95 + 53 = 686 = accepted.
	want := compute.Counts{Drafts: 596, DraftTokens: 2384, AcceptedTokens: 686, AcceptedPerPosition: []float64{343, 195, 95, 53}}
	if e := res.Entries[0]; e.K != 4 || e.Counts.Drafts != want.Drafts || e.Counts.DraftTokens != want.DraftTokens || e.Counts.AcceptedTokens != want.AcceptedTokens || !slices.Equal(e.Counts.AcceptedPerPosition, want.AcceptedPerPosition) {
		t.Errorf("first line: %+v, want %+v", e.Counts, want)
	}
	// Last line (k = 3): drafts = 2574 / 3 = 858, mean 754 / 858 = 0.8788 -> "0.88".
	if e := res.Entries[7]; e.K != 3 || e.Counts.Drafts != 858 || e.Printed.MeanAcceptanceLength.V != 0.88 || !near(e.Printed.AcceptanceRate.V, 0.293) {
		t.Errorf("last line: %+v", e)
	}
	// Total: accepted 686+2951+3345+4029+3682+2969+3545+754 = 21961, drafted
	// 2384+7264+10984+13024+12084+9260+12048+2574 = 69622; positions summed by
	// index (the k = 3 line adds to positions 1..3 only).
	if res.Total.AcceptedTokens != 21961 || res.Total.DraftTokens != 69622 || len(res.Total.AcceptedPerPosition) != 4 {
		t.Errorf("total %+v", res.Total)
	}
	if len(res.Sources) != 1 || res.Sources[0].Entries != 8 {
		t.Errorf("sources %+v", res.Sources)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestReferenceLines parses the known answers of docs/METRICS.md ("Known
// answers") as full log lines (testdata/reference.log:
// current form with assorted prefixes; the throughputs are made up for a
// 10 s window, everything else is the reference's) and the V0 line.
func TestReferenceLines(t *testing.T) {
	text := readTestdata(t, "reference.log")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	res := Parse(text)
	if len(res.Problems) != 0 || len(res.Entries) != 5 {
		t.Fatalf("%d entries, problems %+v", len(res.Entries), res.Problems)
	}
	for _, tc := range []struct {
		time, container, engine string
		k                       int
		drafts                  float64
		perPos                  []float64
	}{
		// drafts = 434/2 = 217: round(0.982·217 = 213.094) = 213,
		// round(0.949·217 = 205.933) = 206; 213 + 206 = 419.
		{"08-20 10:15:02", "", "", 2, 217, []float64{213, 206}},
		// drafts = 104/2 = 52: round(42.016) = 42, round(26.988) = 27; 69.
		{"08-20 10:15:12", "vllm-0", "0", 2, 52, []float64{42, 27}},
		// drafts = 828/4 = 207: 157.941, 128.961, 95.013, 81.972 ->
		// 158 + 129 + 95 + 82 = 464.
		{"2025-08-20 10:15:22,123", "", "1", 4, 207, []float64{158, 129, 95, 82}},
		// drafts = 556/4 = 139: 92.991, 67.971, 37.947, 29.051 ->
		// 93 + 68 + 38 + 29 = 228.
		{"08-20 10:15:32", "pod/vllm-1/vllm", "", 4, 139, []float64{93, 68, 38, 29}},
	} {
		i := slices.IndexFunc(res.Entries, func(e Entry) bool { return e.Time == tc.time })
		if i < 0 {
			t.Fatalf("no entry at %s", tc.time)
		}
		e := res.Entries[i]
		if e.Format != FormatCurrent || e.Convention != compute.WithBonus || e.Container != tc.container || e.Engine != tc.engine || e.K != tc.k || e.Counts.Drafts != tc.drafts || !slices.Equal(e.Counts.AcceptedPerPosition, tc.perPos) {
			t.Errorf("%s: %+v", tc.time, e)
		}
		if !e.Derived.Seconds || !near(e.Seconds, 10) || len(e.Notes) != 0 {
			t.Errorf("%s: seconds %v derived %+v notes %q", tc.time, e.Seconds, e.Derived, e.Notes)
		}
		if got := compute.FormatLogLine(e.Stats()); got != afterMarker(lines[i]) {
			t.Errorf("%s re-derived:\n got %s\nwant %s", tc.time, got, afterMarker(lines[i]))
		}
	}
	// V0: k = 3, accepted 8547, draft 13311 -> drafts 13311/3 = 4437;
	// acceptance 8547/13311 = 0.6421 -> "0.642"; efficiency
	// 10616 / (4437 · 4) = 0.5981 -> "0.598" (cross-checked: no notes but
	// the first-line one).
	e := res.Entries[4]
	if e.Format != FormatV0 || e.K != 3 || e.Counts.Drafts != 4437 || e.Counts.DraftTokens != 13311 || e.Counts.AcceptedTokens != 8547 || e.Counts.AcceptedPerPosition != nil || e.Time != "06-10 12:00:00" {
		t.Errorf("V0: %+v", e)
	}
	if len(e.Notes) != 1 || !strings.Contains(e.Notes[0], "since the server started") || e.Derived.Window || !e.Derived.Drafts {
		t.Errorf("V0 notes %q derived %+v", e.Notes, e.Derived)
	}
	if e.Printed.SystemEfficiency.V != 0.598 || e.Printed.Emitted.V != 10616 || e.Printed.AcceptanceRate.V != 0.642 {
		t.Errorf("V0 printed %+v", e.Printed)
	}
	// Sources: ("", ""), ("", "1"), ("pod/vllm-1/vllm", ""), ("vllm-0", "0").
	var keys []string
	for _, s := range res.Sources {
		keys = append(keys, s.Container+"/"+s.Engine)
	}
	if !slices.Equal(keys, []string{"/", "/1", "pod/vllm-1/vllm/", "vllm-0/0"}) {
		t.Errorf("sources %q", keys)
	}
	// Total accepted 419 + 69 + 464 + 228 + 8547 = 9727.
	if res.Total.AcceptedTokens != 9727 || res.Total.Drafts != 217+52+207+139+4437 {
		t.Errorf("total %+v", res.Total)
	}
}

// TestV0Windows: V0 lines are cumulative; entries are differences per
// source, restarts count from 0.
func TestV0Windows(t *testing.T) {
	line := func(acc, dr, em int) string {
		return "INFO 06-10 12:00:00 metrics.py:402] Speculative metrics: Draft acceptance rate: " +
			fmtFixed(float64(acc)/float64(dr), 3) + ", System efficiency: " + fmtFixed(float64(em)/(float64(dr)/3*4), 3) +
			", Number of speculative tokens: 3, Number of accepted tokens: " + itoa(acc) + ", Number of draft tokens: " + itoa(dr) + ", Number of emitted tokens: " + itoa(em) + "."
	}
	text := strings.Join([]string{
		line(8547, 13311, 10616),
		"vllm-1 | " + line(10, 30, 20),
		line(9000, 14001, 11200), // +453 accepted, +690 draft tokens = 230 drafts
		line(30, 60, 50),         // restart
	}, "\r\n")
	res := Parse(text)
	if len(res.Entries) != 4 || len(res.Problems) != 0 {
		t.Fatalf("%+v", res)
	}
	if c := res.Entries[2].Counts; c.AcceptedTokens != 453 || c.DraftTokens != 690 || c.Drafts != 230 || !res.Entries[2].Derived.Window {
		t.Errorf("window %+v", res.Entries[2])
	}
	if c := res.Entries[3].Counts; c.AcceptedTokens != 30 || c.DraftTokens != 60 || !strings.Contains(strings.Join(res.Entries[3].Notes, " "), "restarted") {
		t.Errorf("restart %+v", res.Entries[3])
	}
	if res.Entries[1].Container != "vllm-1" || res.Entries[1].Counts.AcceptedTokens != 10 {
		t.Errorf("other source %+v", res.Entries[1])
	}
	// Total: 8547 + 10 + 453 + 30 = 9040 accepted.
	if res.Total.AcceptedTokens != 9040 {
		t.Errorf("total %+v", res.Total)
	}
}

func itoa(n int) string { return fmtCount(float64(n)) }

func TestGarbageAndTruncated(t *testing.T) {
	for _, tc := range []struct {
		line, reason string
	}{
		{"INFO SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 41.90 tokens/s, Drafted throughput: 43.40 tokens/s, Accepted: 419 tokens, Drafted: 434 tokens, Per-position acceptance rate: 0.982, 0.949, Avg Draft acceptance rate: 96.", `"96." is not a percentage`},
		{"INFO SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 41.90 tokens/s, Drafted throughput: 43.40 tokens/s, Accepted: 419 tokens, Drafted: 434 tokens, Per-position acceptance rate: 0.982, 0.9", `field "Avg Draft acceptance rate" missing`},
		{"SpecDecoding metrics: Draft acceptance rate: 28.8%, Mean acceptance length: 1.15, Accepted: 686 tokens, Drafted: 2384 tokens, Per-position acceptance probabilities: 0.576, 0.32", "per-position rate 2 printed with 2 decimals, the first with 3: truncated"},
		{"INFO SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 41.90 tokens/s, Drafted throughput: 43.40 tokens/s, Accepted: 419 tokens, Drafted: 43", `drafted "43" is not "N tokens"`},
		{"INFO SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 41.90 tokens/s", `field "Accepted" missing`},
		{"SpecDecoding metrics: Draft acceptance rate: 28.8%, Mean acceptance length: 1.15, Accepted: 686 tokens, Drafted: 2384 tokens", "per-position acceptance rates missing"},
		{"SpecDecoding metrics: Draft acceptance rate: 28.8%, Mean acceptance length: 1.15, Accepted: 686 tokens, Drafted: 2384 tokens, Per-position acceptance probabilities: 0.576, ", "per-position rate has no value"},
		{"SpecDecoding metrics:", "no fields"},
		{"SpecDecoding metrics: garbage", `text "garbage" before the first field`},
		{"SpecDecoding metrics: Foo: 1, Bar: 2", `unknown form: first field "foo"`},
		{"SpecDecoding metrics: Mean acceptance length: -1.00, Accepted: 1 tokens", "Mean acceptance length \"-1.00\" is not a number"},
		{"SpecDecoding metrics: Mean acceptance length: NaN, Accepted: 1 tokens", `"NaN" is not a number`},
		{"SpecDecoding metrics: Mean acceptance length: 1e999, Accepted: 1 tokens", `"1e999" is not a number`},
		{"SpecDecoding metrics: Draft acceptance rate: 28.8%, Mean acceptance length: 1.15, Accepted: 99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999 tokens, Drafted: 4 tokens, Per-position acceptance probabilities: 0.5", "out of range"},
		{"Speculative metrics: Draft acceptance rate: 0.642, System efficiency: 0.598, Number of speculative tokens: 3, Number of accepted tokens: 8547, Number of draft tokens: 13311, Number of emitted tok", "truncated"},
		{"Speculative metrics: Draft acceptance rate: 0.642, System efficiency: 0.598, Number of speculative tokens: 0, Number of accepted tokens: 8547, Number of draft tokens: 13311, Number of emitted tokens: 1.", "number of speculative tokens 0 is not 1..1025"},
		{"Speculative metrics: Draft acceptance rate: 0.642, Number of accepted tokens: 8547.", `field "number of speculative tokens" missing`},
		{"x SpecDecoding metrics: Mean acceptance length: 2.93 SpecDecoding metrics: Mean acceptance length: 2.93", "2 metrics lines run together"},
	} {
		res := Parse("INFO some other line\n" + tc.line + "\n")
		if len(res.Entries) != 0 || len(res.Problems) != 1 || res.Problems[0].Line != 2 || !strings.Contains(res.Problems[0].Reason, tc.reason) {
			t.Errorf("%q:\n got %+v\nwant one problem on line 2 with %q", tc.line, res.Problems, tc.reason)
		}
	}
	// No metrics line at all: said, never a silent empty result.
	for text, want := range map[string]string{
		"":                                "empty input",
		"hello\nworld\n":                  "no vLLM speculative-decoding line",
		"INFO Avg prompt throughput: 1.0": "in 1 lines",
	} {
		res := Parse(text)
		if len(res.Problems) != 1 || res.Problems[0].Line != 0 || !strings.Contains(res.Problems[0].Reason, want) {
			t.Errorf("%q: %+v", text, res.Problems)
		}
	}
}

// TestEveryTruncation cuts each PR 16665 and reference line at every byte:
// the parser never panics, and a cut line never comes out as a clean entry
// (it is a Problem, or an entry with Notes when it was cut at a comma of the
// per-position list, which changes k).
func TestEveryTruncation(t *testing.T) {
	text := readTestdata(t, "seed_000.log") + readTestdata(t, "reference.log")
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		at := strings.Index(line, "metrics:") + len("metrics:")
		for n := at; n < len(line); n++ {
			res := Parse(line[:n])
			if len(res.Problems) == 0 && (len(res.Entries) != 1 || len(res.Entries[0].Notes) == 0 ||
				(res.Entries[0].Format == FormatV0 && len(res.Entries[0].Notes) == 1)) {
				t.Errorf("cut to %q: clean entry %+v", line[:n], res.Entries)
			}
		}
	}
}

func TestInconsistentCounts(t *testing.T) {
	// drafted 435 is not a multiple of k = 2; the mean does not match.
	res := Parse("SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 41.90 tokens/s, Drafted throughput: 43.50 tokens/s, Accepted: 419 tokens, Drafted: 435 tokens, Per-position acceptance rate: 0.982, 0.949, Avg Draft acceptance rate: 96.3%")
	if len(res.Entries) != 1 {
		t.Fatalf("%+v", res)
	}
	notes := strings.Join(res.Entries[0].Notes, "\n")
	for _, want := range []string{"drafted (435 tokens) is not a multiple of k = 2", "lower bound"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	// Per-position sum that cannot reach accepted within the printed
	// precision: said.
	res = Parse("SpecDecoding metrics: Draft acceptance rate: 50.0%, Mean acceptance length: 1.00, Accepted: 4 tokens, Drafted: 8 tokens, Per-position acceptance probabilities: 0.500, 0.100")
	if notes := strings.Join(res.Entries[0].Notes, "\n"); !strings.Contains(notes, "sum to 2, not accepted = 4") {
		t.Errorf("notes %q", notes)
	}
	// Unknown extra field: kept as a note, the line still parses.
	res = Parse("SpecDecoding metrics: Draft acceptance rate: 60.0%, Mean acceptance length: 1.80, Accepted: 9 tokens, Drafted: 15 tokens, Per-position acceptance probabilities: 1.000, 0.600, 0.200, Foo: 3")
	if e := res.Entries[0]; len(e.Notes) != 1 || !strings.Contains(e.Notes[0], `unknown field "foo"`) || !slices.Equal(e.Counts.AcceptedPerPosition, []float64{5, 3, 1}) || e.Convention != compute.WithoutBonus {
		t.Errorf("%+v", e)
	}
	// The same worked example printed with the bonus (vLLM after PR 17908,
	// 2025 form): convention found from the numbers.
	res = Parse("SpecDecoding metrics: Draft acceptance rate: 60.0%, Mean acceptance length: 2.80, Accepted: 9 tokens, Drafted: 15 tokens, Per-position acceptance rate: 1.000, 0.600, 0.200")
	if e := res.Entries[0]; len(e.Notes) != 0 || e.Convention != compute.WithBonus || e.Format != Format2025 {
		t.Errorf("%+v", e)
	}
}

func TestPerPositionAdjusted(t *testing.T) {
	// drafts = 12000/4 = 3000; true counts [1801, 1200, 600, 301] = 3902
	// print as 0.600, 0.400, 0.200, 0.100 (1801/3000 = 0.60033,
	// 301/3000 = 0.10033); round(rate · 3000) gives [1800, 1200, 600, 300]
	// = 3900, 2 short of accepted: moved within the printed precision
	// (|n/3000 - rate| <= 0.0005, n within ±1.5) to sum to 3902.
	res := Parse("SpecDecoding metrics: Draft acceptance rate: 32.5%, Mean acceptance length: 1.30, Accepted: 3902 tokens, Drafted: 12000 tokens, Per-position acceptance probabilities: 0.600, 0.400, 0.200, 0.100")
	e := res.Entries[0]
	var sum float64
	for _, v := range e.Counts.AcceptedPerPosition {
		sum += v
	}
	if sum != 3902 || len(e.Notes) != 0 || compute.Check(e.Counts) != nil {
		t.Errorf("counts %v (sum %v), notes %q", e.Counts.AcceptedPerPosition, sum, e.Notes)
	}
	for i, r := range []float64{0.6, 0.4, 0.2, 0.1} {
		if math.Abs(e.Counts.AcceptedPerPosition[i]/3000-r) > 0.0005 {
			t.Errorf("pos %d: %v/3000 does not print as %v", i+1, e.Counts.AcceptedPerPosition[i], r)
		}
	}
}

func TestEntryJSON(t *testing.T) {
	res := Parse(readTestdata(t, "reference.log"))
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format":"current"`, `"format":"V0"`, `"drafts":true`, `"engine":"1"`, `"system_efficiency":0.598`, `"accepted_throughput":null`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
}

// FuzzParse: no panic on any input; every entry's counts are finite and
// JSON encoding never fails.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"seed_000.log", "reference.log"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("SpecDecoding metrics: Draft acceptance rate: 0.0%, Mean acceptance length: 0.00, Accepted: 0 tokens, Drafted: 0 tokens, Per-position acceptance probabilities: 0.000")
	f.Add("# TYPE vllm:spec_decode_num_drafts_total counter\nvllm:spec_decode_num_drafts_total 5\n")
	f.Fuzz(func(t *testing.T, s string) {
		res := Parse(s)
		for _, e := range res.Entries {
			for _, v := range append([]float64{e.Counts.Drafts, e.Counts.DraftTokens, e.Counts.AcceptedTokens, e.Seconds}, e.Counts.AcceptedPerPosition...) {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("line %d: count %v in %+v", e.Line, v, e.Counts)
				}
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatal(err)
		}
		if len(res.Entries) == 0 && len(res.Problems) == 0 {
			t.Fatal("empty result without a problem")
		}
		sc := ParseScrape(s)
		if _, err := json.Marshal(sc); err != nil {
			t.Fatal(err)
		}
		LooksLikeScrape(s)
	})
}

// TestZeroDraftLines: vLLM prints nan ratios for a window without drafts
// (V1: 1 + 0/0 and 0/0 through numpy, the rate as float("nan"); V0:
// before the first draft). Such lines are zero-draft entries: 0 counts
// at each of their k positions, undefined printed ratios, no problem, and
// no NaN anywhere (the result encodes as JSON, which refuses NaN).
func TestZeroDraftLines(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		format     Format
		k          int
	}{
		{"current", "(APIServer pid=1) INFO 04-16 09:49:04 [metrics.py:82] SpecDecoding metrics: Mean acceptance length: nan, Accepted throughput: 0.00 tokens/s, Drafted throughput: 0.00 tokens/s, Accepted: 0 tokens, Drafted: 0 tokens, Per-position acceptance rate: nan, nan, nan, Avg Draft acceptance rate: nan%", FormatCurrent, 3},
		{"current, guarded rates", "INFO SpecDecoding metrics: Mean acceptance length: 1.00, Accepted throughput: 0.00 tokens/s, Drafted throughput: 0.00 tokens/s, Accepted: 0 tokens, Drafted: 0 tokens, Per-position acceptance rate: 0.000, 0.000, 0.000, 0.000, Avg Draft acceptance rate: nan%", FormatCurrent, 4},
		{"2025", "INFO SpecDecoding metrics: Draft acceptance rate: nan%, Mean acceptance length: nan, Accepted: 0 tokens, Drafted: 0 tokens, Per-position acceptance rate: nan, nan", Format2025, 2},
		{"V0", "INFO Speculative metrics: Draft acceptance rate: nan, System efficiency: nan, Number of speculative tokens: 5, Number of accepted tokens: 0, Number of draft tokens: 0, Number of emitted tokens: 0.", FormatV0, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Parse(tc.line + "\n")
			if len(res.Problems) != 0 || len(res.Entries) != 1 {
				t.Fatalf("problems %+v, %d entries; want one entry", res.Problems, len(res.Entries))
			}
			e := res.Entries[0]
			if e.Format != tc.format || e.K != tc.k {
				t.Errorf("format %v k %d, want %v k %d", e.Format, e.K, tc.format, tc.k)
			}
			c := e.Counts
			if c.Drafts != 0 || c.DraftTokens != 0 || c.AcceptedTokens != 0 {
				t.Errorf("counts %+v, want 0", c)
			}
			if tc.format != FormatV0 && !slices.Equal(c.AcceptedPerPosition, make([]float64, tc.k)) {
				t.Errorf("per position %v, want %d zeros", c.AcceptedPerPosition, tc.k)
			}
			if e.Printed.AcceptanceRate.OK {
				t.Errorf("printed acceptance rate %v, want undefined (nan)", e.Printed.AcceptanceRate)
			}
			s := e.Stats()
			if s.AcceptanceRate.OK || s.MeanAcceptanceLength.OK {
				t.Errorf("stats %+v: ratios over no drafts must be undefined", s)
			}
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatalf("result does not encode as JSON (a NaN?): %v", err)
			}
			if strings.Contains(string(b), "NaN") {
				t.Errorf("JSON holds a NaN: %s", b)
			}
		})
	}
	// Among lines with drafts, a zero-draft line adds nothing and keeps
	// k: the total equals the other line's counts.
	withDrafts := "INFO SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 41.90 tokens/s, Drafted throughput: 43.40 tokens/s, Accepted: 419 tokens, Drafted: 434 tokens, Per-position acceptance rate: 0.982, 0.949, Avg Draft acceptance rate: 96.5%"
	zero := "INFO SpecDecoding metrics: Mean acceptance length: nan, Accepted throughput: 0.00 tokens/s, Drafted throughput: 0.00 tokens/s, Accepted: 0 tokens, Drafted: 0 tokens, Per-position acceptance rate: nan, nan, Avg Draft acceptance rate: nan%"
	res := Parse(withDrafts + "\n" + zero + "\n")
	if len(res.Problems) != 0 || len(res.Entries) != 2 {
		t.Fatalf("problems %+v, %d entries; want two entries", res.Problems, len(res.Entries))
	}
	if got, want := res.Total, res.Entries[0].Counts; got.Drafts != want.Drafts || got.AcceptedTokens != 419 || got.DraftTokens != 434 || !slices.Equal(got.AcceptedPerPosition, want.AcceptedPerPosition) {
		t.Errorf("total %+v, want the first line's counts %+v", got, want)
	}
	// nan beside drafted tokens is not vLLM's: refused, saying why.
	for _, line := range []string{
		"INFO SpecDecoding metrics: Mean acceptance length: nan, Accepted throughput: 41.90 tokens/s, Drafted throughput: 43.40 tokens/s, Accepted: 419 tokens, Drafted: 434 tokens, Per-position acceptance rate: 0.982, 0.949, Avg Draft acceptance rate: 96.5%",
		"INFO Speculative metrics: Draft acceptance rate: nan, System efficiency: 0.598, Number of speculative tokens: 3, Number of accepted tokens: 8547, Number of draft tokens: 13311, Number of emitted tokens: 1.",
	} {
		res := Parse(line + "\n")
		if len(res.Entries) != 0 || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Reason, "is nan with") {
			t.Errorf("%q: entries %d, problems %+v; want one problem saying nan with drafted tokens", line, len(res.Entries), res.Problems)
		}
	}
}

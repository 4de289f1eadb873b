package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
)

// TestKnownAnswers backfills the known-answer fixture into a real
// Prometheus and checks report.Build (and the specdash report CLI) against
// the fixture's hand-computed answers: counts exactly, ratios to 1e-12.
// mixedKWarning is report's warning for the known-answer fixture, whose
// model A drafts k=3 and model B k=4 (compute.KMix.Warning).
// restartNote is the note of the fixture's one counter reset (one engine
// restarted once; compute.ResetNotes).
const restartNote = "1 counter restart(s) in 1 engine(s) in this window: each restart's new value is counted as its increase (marked on the charts)"

const mixedKWarning = `the selected series mix k = 3 and 4 (model_name: "Llama 3 \"chat\" 8B" k=3, "org/model-b" k=4): summed per-position rates from pos 4 on cover only the series that draft that far (each divided by their drafts), while the conditional rates, geometric fit and speedup still mix series of different k; group by model_name or filter to one k`

func TestKnownAnswers(t *testing.T) {
	fx := fixtures.KnownAnswer()
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fx.OpenMetrics)})
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: time.Duration(fixtures.StepSeconds) * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	for _, w := range []fixtures.Window{fx.Whole, fx.Sub} {
		rng := time.Duration(w.End-w.Start) * time.Second
		// The fixture's step, coarser steps on which the window's bounds
		// fall, and the automatic one: exact increases do not depend on the
		// step.
		steps := []time.Duration{0}
		for _, st := range []int64{w.Step, 60, 300} {
			if w.Start%st == 0 && w.End%st == 0 {
				steps = append(steps, time.Duration(st)*time.Second)
			}
		}
		if len(steps) < 2 || (w.Name == fx.Whole.Name && len(steps) != 4) {
			t.Fatalf("%s: steps %v", w.Name, steps)
		}
		for _, step := range steps {
			name := fmt.Sprintf("%s/step=%s", w.Name, step)
			base := Options{Range: rng, End: w.EndTime(), Step: step}

			o := base
			o.GroupBy = []string{"model_name", "engine"}
			res, err := Build(ctx, c, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if res.Start != w.StartTime() || res.End != w.EndTime() || res.WindowSeconds != float64(w.End-w.Start) {
				t.Errorf("%s: window %s..%s (%v s), want %s..%s", name, res.Start, res.End, res.WindowSeconds, w.StartTime(), w.EndTime())
			}
			if step == 0 && res.StepSeconds != float64(w.Step) {
				t.Errorf("%s: automatic step %v s, want %d s", name, res.StepSeconds, w.Step)
			}
			// Model A drafts k=3, model B k=4: the total's pos 4 is
			// diluted, and the report says so (once, whatever the grouping);
			// the restart is named too.
			if !slices.Equal(res.Warnings, []string{mixedKWarning, restartNote}) {
				t.Errorf("%s: warnings %q, want the mixed-k one", name, res.Warnings)
			}
			if len(res.Groups) != len(w.Series) {
				t.Errorf("%s: %d groups, want %d", name, len(res.Groups), len(w.Series))
			}
			for i, g := range res.Groups {
				k := fixtures.Key{Model: g.Labels["model_name"], Engine: g.Labels["engine"]}
				want, ok := w.Series[k]
				if !ok || len(g.Labels) != 2 {
					t.Errorf("%s: unexpected group %v", name, g.Labels)
					continue
				}
				if i > 0 {
					prev := res.Groups[i-1].Labels
					if prev["model_name"] > k.Model || (prev["model_name"] == k.Model && prev["engine"] >= k.Engine) {
						t.Errorf("%s: groups not sorted: %v before %v", name, prev, g.Labels)
					}
				}
				expect(t, fmt.Sprintf("%s %q/%s", name, k.Model, k.Engine), g.Stats, want, compute.WithBonus)
			}
			expect(t, name+" total (by model, engine)", res.Total, w.Total, compute.WithBonus)

			o = base
			o.GroupBy = []string{"model_name"}
			res, err = Build(ctx, c, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(res.Groups) != len(w.Models) {
				t.Errorf("%s: %d model groups, want %d", name, len(res.Groups), len(w.Models))
			}
			for _, g := range res.Groups {
				want, ok := w.Models[g.Labels["model_name"]]
				if !ok {
					t.Errorf("%s: unexpected group %v", name, g.Labels)
					continue
				}
				expect(t, fmt.Sprintf("%s %q", name, g.Labels["model_name"]), g.Stats, want, compute.WithBonus)
			}
			expect(t, name+" total (by model)", res.Total, w.Total, compute.WithBonus)

			o = base
			o.Convention = compute.WithoutBonus
			res, err = Build(ctx, c, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(res.Groups) != 1 || len(res.Groups[0].Labels) != 0 || res.Convention != "no-bonus" {
				t.Errorf("%s: ungrouped groups %+v, convention %s", name, res.Groups, res.Convention)
			} else {
				expect(t, name+" ungrouped group", res.Groups[0].Stats, w.Total, compute.WithoutBonus)
			}
			expect(t, name+" total (ungrouped)", res.Total, w.Total, compute.WithoutBonus)
		}

		// A filter on the model with quotes in its name selects exactly it.
		o := Options{Range: rng, End: w.EndTime(), Step: time.Duration(w.Step) * time.Second, GroupBy: []string{"engine"},
			Filters: []metricsclient.Filter{{Name: "model_name", Values: []string{fixtures.ModelA}}}}
		res, err := Build(ctx, c, o)
		if err != nil {
			t.Fatalf("%s filtered: %v", w.Name, err)
		}
		if len(res.Groups) != len(fx.Engines) {
			t.Errorf("%s filtered: %d groups, want %d", w.Name, len(res.Groups), len(fx.Engines))
		}
		if len(res.Warnings) != 0 {
			t.Errorf("%s filtered to one k: warnings %q", w.Name, res.Warnings)
		}
		for _, g := range res.Groups {
			expect(t, w.Name+" filtered engine "+g.Labels["engine"], g.Stats, w.Series[fixtures.Key{Model: fixtures.ModelA, Engine: g.Labels["engine"]}], compute.WithBonus)
		}
		expect(t, w.Name+" filtered total", res.Total, w.Models[fixtures.ModelA], compute.WithBonus)

		// The real CLI: its JSON equals Build's, for the grouped report.
		o = Options{Range: rng, End: w.EndTime(), Step: time.Duration(w.Step) * time.Second, GroupBy: []string{"model_name", "engine"}}
		res, err = Build(ctx, c, o)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := res.WriteJSON(&want); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCLI(t, "report", "--prometheus.url="+srv.URL, "--format=json",
			"--range="+rng.String(), "--end="+w.EndTime().Format(time.RFC3339), "--step=15s",
			"--group-by=model_name", "--group-by=engine")
		if code != 0 {
			t.Fatalf("%s CLI: exit %d: %s", w.Name, code, errOut)
		}
		if out != want.String() {
			t.Errorf("%s CLI JSON\n%s\nwant (Build)\n%s", w.Name, out, want.String())
		}
		// And its numbers, read back from JSON, are the fixture's.
		var doc struct {
			Groups   []jsonStats `json:"groups"`
			Total    jsonStats   `json:"total"`
			Warnings []string    `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(doc.Warnings, []string{mixedKWarning, restartNote}) {
			t.Errorf("%s CLI JSON warnings %q, want the mixed-k one", w.Name, doc.Warnings)
		}
		for _, g := range doc.Groups {
			k := fixtures.Key{Model: g.Labels["model_name"], Engine: g.Labels["engine"]}
			expect(t, w.Name+" CLI "+strconv.Quote(k.Model)+"/"+k.Engine, g.stats(), w.Series[k], compute.WithBonus)
		}
		expect(t, w.Name+" CLI total", doc.Total.stats(), w.Total, compute.WithBonus)

		// The text report prints the mixed-k warning.
		text, errOut, code := runCLI(t, "report", "--prometheus.url="+srv.URL,
			"--range="+rng.String(), "--end="+w.EndTime().Format(time.RFC3339))
		if code != 0 {
			t.Fatalf("%s CLI text: exit %d: %s", w.Name, code, errOut)
		}
		if !strings.Contains(text, "\nwarning: "+mixedKWarning+"\n") {
			t.Errorf("%s CLI text lacks the mixed-k warning:\n%s", w.Name, text)
		}

		// The CLI with the quoted model name as a filter.
		out, errOut, code = runCLI(t, "report", "--prometheus.url="+srv.URL, "--format=json",
			"--range="+rng.String(), "--end="+w.EndTime().Format(time.RFC3339),
			"--filter=model_name="+fixtures.ModelA)
		if code != 0 {
			t.Fatalf("%s CLI filter: exit %d: %s", w.Name, code, errOut)
		}
		doc.Groups, doc.Total, doc.Warnings = nil, jsonStats{}, nil // fields absent from this answer must not stay
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		expect(t, w.Name+" CLI filtered total", doc.Total.stats(), w.Models[fixtures.ModelA], compute.WithBonus)
	}

	// An absent model: the MissingMetricsError, not an empty success.
	o := Options{Range: 30 * time.Minute, End: fx.Whole.EndTime(), Filters: []metricsclient.Filter{{Name: "model_name", Values: []string{"Llama 3 chat 8B"}}}}
	_, err = Build(ctx, c, o)
	var me *metricsclient.MissingMetricsError
	if !errors.As(err, &me) {
		t.Fatalf("absent model: %v, want *MissingMetricsError", err)
	}
	for _, s := range []string{"no vLLM V1 speculative-decoding metrics (vllm:spec_decode_num_drafts_total, ",
		`model_name="Llama 3 chat 8B"`, "the metrics exist without the filters",
		`model_name values present: "Llama 3 \"chat\" 8B", "org/model-b"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("absent model message lacks %q:\n%s", s, err)
		}
	}
	_, errOut, code := runCLI(t, "report", "--prometheus.url="+srv.URL, "--range=30m",
		"--end="+fx.Whole.EndTime().Format(time.RFC3339), "--filter=model_name=Llama 3 chat 8B")
	if code == 0 || !strings.Contains(errOut, err.Error()) {
		t.Errorf("CLI absent model: exit %d, stderr %s", code, errOut)
	}
}

// jsonStats reads one group of the report JSON back.
type jsonStats struct {
	Labels              map[string]string `json:"labels"`
	K                   int               `json:"k"`
	Drafts              float64           `json:"drafts"`
	DraftTokens         float64           `json:"draft_tokens"`
	AcceptedTokens      float64           `json:"accepted_tokens"`
	AcceptedPerPosition []float64         `json:"accepted_per_position"`
	DraftsAtPosition    []float64         `json:"drafts_at_position"`
	AcceptanceRate      *float64          `json:"acceptance_rate"`
	MeanLength          *float64          `json:"mean_acceptance_length"`
	PerPosition         []*float64        `json:"per_position_acceptance_rate"`
	AcceptedThroughput  *float64          `json:"accepted_throughput"`
	DraftedThroughput   *float64          `json:"drafted_throughput"`
}

func val(p *float64) compute.Value {
	if p == nil {
		return compute.Value{}
	}
	return compute.Value{V: *p, OK: true}
}

func (j jsonStats) stats() compute.Stats {
	s := compute.Stats{K: j.K, Drafts: j.Drafts, DraftTokens: j.DraftTokens, AcceptedTokens: j.AcceptedTokens,
		AcceptedPerPosition: j.AcceptedPerPosition, DraftsAtPosition: j.DraftsAtPosition, AcceptanceRate: val(j.AcceptanceRate), MeanAcceptanceLength: val(j.MeanLength),
		AcceptedThroughput: val(j.AcceptedThroughput), DraftedThroughput: val(j.DraftedThroughput)}
	for _, p := range j.PerPosition {
		s.PerPositionAcceptanceRate = append(s.PerPositionAcceptanceRate, val(p))
	}
	return s
}

// expect compares stats with a fixture answer: counts exactly, ratios and
// throughputs to a relative 1e-12.
func expect(t *testing.T, what string, s compute.Stats, want fixtures.Expected, conv compute.Convention) {
	t.Helper()
	wc := want.Counts
	if s.Drafts != wc.Drafts || s.DraftTokens != wc.DraftTokens || s.AcceptedTokens != wc.AcceptedTokens ||
		!reflect.DeepEqual(s.AcceptedPerPosition, wc.AcceptedPerPosition) || s.K != len(wc.AcceptedPerPosition) ||
		!reflect.DeepEqual(s.DraftsAtPosition, wc.DraftsAtPosition) {
		t.Errorf("%s: counts k=%d %v/%v/%v %v (drafts at positions %v), want k=%d %v/%v/%v %v (%v)", what, s.K, s.Drafts, s.DraftTokens, s.AcceptedTokens, s.AcceptedPerPosition, s.DraftsAtPosition,
			len(wc.AcceptedPerPosition), wc.Drafts, wc.DraftTokens, wc.AcceptedTokens, wc.AcceptedPerPosition, wc.DraftsAtPosition)
	}
	close := func(name string, got compute.Value, want float64) {
		if !got.OK || math.Abs(got.V-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: %s = %+v, want %.17g", what, name, got, want)
		}
	}
	close("acceptance rate", s.AcceptanceRate, want.AcceptanceRate)
	if conv == compute.WithoutBonus {
		close("mean acceptance length (no bonus)", s.MeanAcceptanceLength, want.MeanAcceptanceLengthNoBonus)
	} else {
		close("mean acceptance length", s.MeanAcceptanceLength, want.MeanAcceptanceLength)
	}
	if len(s.PerPositionAcceptanceRate) != len(want.PerPositionRate) {
		t.Errorf("%s: %d per-position rates, want %d", what, len(s.PerPositionAcceptanceRate), len(want.PerPositionRate))
	} else {
		for i, r := range want.PerPositionRate {
			close(fmt.Sprintf("per-position rate %d", i), s.PerPositionAcceptanceRate[i], r)
		}
	}
	close("accepted throughput", s.AcceptedThroughput, want.AcceptedPerSecond)
	close("drafted throughput", s.DraftedThroughput, want.DraftedPerSecond)
}

package report

import (
	"encoding/json"
	"strings"
	"testing"

	"specdash/compute"
	"specdash/model"
)

// healthModel: 20 one-minute buckets of two models with k = 2, 10 drafts
// of 20 draft tokens per 10 s: "good" accepts 12 tokens per 10 s (60 %),
// "broken" 12 for 10 buckets, then none.
func healthModel(groupBy []string) *model.Model {
	g := compute.Grid{Start: 1_800_000_000_000, End: 1_800_000_000_000 + 1_200_000, Step: 60_000}
	series := func(name string, acc func(bucket int) [2]float64) []compute.Series {
		l := map[string]string{"model_name": name}
		mk := func(f compute.Family, pos int, inc func(int) float64) compute.Series {
			s := compute.Series{Family: f, Labels: l, Position: pos, Points: []compute.Point{{T: g.Start}}}
			v := 0.0
			for t := g.Start + 10_000; t <= g.End; t += 10_000 {
				v += inc(int((t - 1 - g.Start) / g.Step))
				s.Points = append(s.Points, compute.Point{T: t, V: v})
			}
			return s
		}
		return []compute.Series{
			mk(compute.Drafts, -1, func(int) float64 { return 10 }),
			mk(compute.DraftTokens, -1, func(int) float64 { return 20 }),
			mk(compute.AcceptedTokens, -1, func(j int) float64 { a := acc(j); return a[0] + a[1] }),
			mk(compute.AcceptedPerPosition, 0, func(j int) float64 { return acc(j)[0] }),
			mk(compute.AcceptedPerPosition, 1, func(j int) float64 { return acc(j)[1] }),
		}
	}
	all := append(series("good", func(int) [2]float64 { return [2]float64{7, 5} }),
		series("broken", func(j int) [2]float64 {
			if j < 10 {
				return [2]float64{7, 5}
			}
			return [2]float64{}
		})...)
	return model.FromSeries(all, model.Request{Grid: g, GroupBy: groupBy})
}

// TestHealthText: a health line per group and for the total with the
// verdict, the summary's numbers, an alarm's evidence and cause, and the
// change of the acceptance rate with its time and p-value.
func TestHealthText(t *testing.T) {
	var b strings.Builder
	if err := FromModel(healthModel([]string{"model_name"}), nil).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"{model_name=\"broken\"}: SpecDecoding metrics: ",
		// Judged since its change: collapsed, the whole window in a note.
		"\n  health: collapsed - drafts 1/s but mean acceptance length 1.00 over the last 10m: drafted tokens are almost all rejected\n",
		"\n    note: judged since the last change of the acceptance rate (from 60.0 % to 0.0 %, p < 0.001); over the whole window: acceptance rate 30.0 % over the last 20m, mean acceptance length 1.60\n" +
			"  change: acceptance rate changed at 2027-01-15T08:10:00Z from 60.0 % to 0.0 % (p < 0.001)\n{model_name=\"good\"}: ",
		"\n  health: healthy - acceptance rate 60.0 % over the last 20m, mean acceptance length 2.20\ntotal: ",
		"\n  health: healthy - acceptance rate 30.0 % over the last 10m, mean acceptance length 1.60\n",
		"\n  change: acceptance rate changed at 2027-01-15T08:10:00Z from 60.0 % to 30.0 % (p < 0.001)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "  health: "); n != 3 {
		t.Errorf("%d health lines, want 3 (two groups and the total):\n%s", n, out)
	}

	// An alarm: the thresholds of Request.Health, evidence and cause.
	m := healthModel(nil)
	m.Request.Health.Thresholds.CollapseRate = 0.5
	m.AddHealth()
	b.Reset()
	if err := FromModel(m, nil).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	for _, want := range []string{
		"\n  health: collapsed - drafts 2/s but mean acceptance length 1.60 over the last 10m: drafted tokens are almost all rejected\n",
		"\n    evidence: acceptance rate 30.0 % (95 % interval 28.2 %-31.9 % of 2400 draft tokens), below the collapse threshold 50.0 %\n",
		"\n    usual cause: " + compute.CauseCollapsed + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("collapsed text lacks %q:\n%s", want, out)
		}
	}
}

// TestHealthJSON: "health" per group and in "total" is the verdict's JSON
// (state, summary, rate interval, k, ...), "changes" the change points
// with their time.
func TestHealthJSON(t *testing.T) {
	var b strings.Builder
	if err := FromModel(healthModel([]string{"model_name"}), nil).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	type verdict struct {
		State        string   `json:"state"`
		Summary      string   `json:"summary"`
		Evidence     []string `json:"evidence"`
		K            int      `json:"k"`
		CliffPositon int      `json:"cliff_position"`
		Rate         struct {
			Estimate *float64 `json:"estimate"`
		} `json:"rate"`
		MeanLength      *float64 `json:"mean_length"`
		DraftsPerSecond *float64 `json:"drafts_per_second"`
	}
	type change struct {
		At     string  `json:"at"`
		Bucket int     `json:"bucket"`
		PValue float64 `json:"p_value"`
		Before struct {
			Estimate *float64 `json:"estimate"`
		} `json:"before"`
	}
	var doc struct {
		Groups []struct {
			Labels  map[string]string `json:"labels"`
			Health  *verdict          `json:"health"`
			Changes []change          `json:"changes"`
		} `json:"groups"`
		Total struct {
			Drafts  float64  `json:"drafts"`
			Health  *verdict `json:"health"`
			Changes []change `json:"changes"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(doc.Groups) != 2 || doc.Groups[0].Health == nil || doc.Groups[1].Health == nil || doc.Total.Health == nil {
		t.Fatalf("health missing:\n%s", b.String())
	}
	br, good := doc.Groups[0], doc.Groups[1]
	// Judged since its change: no token accepted.
	if br.Labels["model_name"] != "broken" || br.Health.State != "collapsed" || br.Health.K != 2 || br.Health.CliffPositon != -1 ||
		br.Health.Rate.Estimate == nil || *br.Health.Rate.Estimate != 0 || br.Health.MeanLength == nil || *br.Health.MeanLength != 1 ||
		len(br.Health.Evidence) != 1 {
		t.Errorf("broken: %+v", br.Health)
	}
	if len(br.Changes) != 1 || br.Changes[0].At != "2027-01-15T08:10:00Z" || br.Changes[0].Bucket != 10 || br.Changes[0].PValue >= 0.001 ||
		br.Changes[0].Before.Estimate == nil || *br.Changes[0].Before.Estimate != 0.6 {
		t.Errorf("broken changes: %+v", br.Changes)
	}
	if good.Health.Summary != "acceptance rate 60.0 % over the last 20m, mean acceptance length 2.20" || len(good.Changes) != 0 ||
		good.Health.DraftsPerSecond == nil || *good.Health.DraftsPerSecond != 1 {
		t.Errorf("good: %+v %+v", good.Health, good.Changes)
	}
	if doc.Total.Drafts != 2400 || doc.Total.Health.State != "healthy" || len(doc.Total.Changes) != 1 {
		t.Errorf("total: drafts %v health %+v changes %+v", doc.Total.Drafts, doc.Total.Health, doc.Total.Changes)
	}
}

// TestHealthTextIdle: an idle verdict's line names the state once
// ("health: idle - no drafts ...", not "idle - idle: no drafts").
func TestHealthTextIdle(t *testing.T) {
	v := compute.Health(compute.Counts{}, 600, 3, compute.HealthThresholds{})
	var b strings.Builder
	writeHealthText(&b, &v, nil)
	line, _, _ := strings.Cut(b.String(), "\n")
	if !strings.HasPrefix(line, "  health: idle - no drafts") || strings.Count(line, "idle") != 1 {
		t.Errorf("idle line %q, want %q...", line, "  health: idle - no drafts")
	}
}

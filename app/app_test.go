package app

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
)

func TestQueryURL(t *testing.T) {
	v, _ := url.ParseQuery("range=1h&refresh=10s&model=" + url.QueryEscape(`Llama "8B" x`) + "&engine=1&convention=nobonus")
	q := ParseQuery(v)
	want := Query{Range: "1h", Refresh: "10s", Model: `Llama "8B" x`, Engine: "1", Convention: compute.WithoutBonus}
	if q != want {
		t.Fatalf("ParseQuery = %+v, want %+v", q, want)
	}
	if back := ParseQuery(q.Values()); back != q {
		t.Errorf("round trip %+v -> %q -> %+v", q, q.Values().Encode(), back)
	}
	if q.RangeDuration() != time.Hour || q.RefreshDuration() != 10*time.Second {
		t.Errorf("durations %v %v", q.RangeDuration(), q.RefreshDuration())
	}

	// Invalid values fall back to the defaults; "all" is no filter.
	v, _ = url.ParseQuery("range=7m&refresh=1s&model=all&engine=all&convention=bogus")
	if q := ParseQuery(v); q != DefaultQuery() {
		t.Errorf("ParseQuery(invalid) = %+v, want the default %+v", q, DefaultQuery())
	}
	if d := (Query{Range: "24h"}).RangeDuration(); d != 24*time.Hour {
		t.Errorf("24h = %v", d)
	}
	if (Query{Refresh: "off"}).RefreshDuration() != 0 {
		t.Errorf("refresh off is not 0")
	}
	if !(Query{Range: "5m", Refresh: "off"}).SameData(Query{Range: "5m", Refresh: "5s"}) {
		t.Errorf("refresh period changes the data selection")
	}
}

func TestOptionEncoding(t *testing.T) {
	for _, v := range []string{"all", `"><img src=x onerror=alert(1)>`, "qwen/Qwen2.5-7B", "ü ß", ""} {
		enc := encodeOption(v)
		if strings.ContainsAny(enc, `"<>&' `) {
			t.Errorf("encodeOption(%q) = %q holds HTML-special characters", v, enc)
		}
		if got := decodeOption(enc); got != v {
			t.Errorf("decodeOption(encodeOption(%q)) = %q", v, got)
		}
	}
	if decodeOption(All) != "" || decodeOption("v:!!") != "" {
		t.Errorf(`"all" and garbage must decode to no filter`)
	}
}

// seedStats are the seed thread's worked example: 5 drafts, k = 3, 9 of 15
// draft tokens accepted, per position [5, 3, 1] (over a 10 s window).
func seedStats() compute.Stats {
	return compute.Derive(compute.Counts{Drafts: 5, DraftTokens: 15, AcceptedTokens: 9, AcceptedPerPosition: []float64{5, 3, 1}}, 10, compute.WithBonus)
}

type echartsOption struct {
	XAxis []struct {
		Data []string `json:"data"`
	} `json:"xAxis"`
	YAxis  []map[string]any `json:"yAxis"`
	Series []struct {
		Type string `json:"type"`
		Data []struct {
			Value any `json:"value"`
		} `json:"data"`
	} `json:"series"`
}

func TestPerPositionOption(t *testing.T) {
	var o echartsOption
	if err := json.Unmarshal([]byte(PerPositionOption(seedStats())), &o); err != nil {
		t.Fatal(err)
	}
	if len(o.XAxis) != 1 || strings.Join(o.XAxis[0].Data, ",") != "pos 1,pos 2,pos 3" {
		t.Fatalf("x axis %+v, want pos 1..pos 3", o.XAxis)
	}
	if len(o.YAxis) != 1 || len(o.Series) != 1 || o.Series[0].Type != "bar" {
		t.Fatalf("want one y axis and one bar series: %+v", o)
	}
	var got []float64
	for _, d := range o.Series[0].Data {
		got = append(got, d.Value.(float64))
	}
	// per-position [1.0, 0.6, 0.2] in percent
	if len(got) != 3 || got[0] != 100 || got[1] != 60 || got[2] != 20 {
		t.Errorf("bars %v, want [100 60 20]", got)
	}
	if PerPositionOption(compute.Stats{}) != "" {
		t.Errorf("k = 0 must give no chart")
	}
}

func TestTimeOptionsHaveGaps(t *testing.T) {
	g := compute.Grid{Start: 0, End: 30_000, Step: 10_000}
	none := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0, 0}}, 10, compute.WithBonus)
	buckets := []compute.Stats{seedStats(), none, seedStats()}
	for name, js := range map[string]string{
		"rate":   AcceptanceRateOption(g, buckets),
		"length": AcceptanceLengthOption(g, buckets),
	} {
		if strings.Contains(js, "NaN") || strings.Contains(js, "Inf") {
			t.Errorf("%s option holds NaN/Inf: %s", name, js)
		}
		var o echartsOption
		if err := json.Unmarshal([]byte(js), &o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := o.Series[0].Data
		if len(d) != 3 || d[1].Value != "-" {
			t.Errorf("%s: bucket without drafts is %v, want the gap marker \"-\"", name, d[1].Value)
		}
		if len(o.XAxis[0].Data) != 3 {
			t.Errorf("%s: %d x labels, want 3", name, len(o.XAxis[0].Data))
		}
	}
	var o echartsOption
	json.Unmarshal([]byte(AcceptanceRateOption(g, buckets)), &o)
	if o.Series[0].Data[0].Value != 60.0 {
		t.Errorf("acceptance rate bucket 0 = %v %%, want 60", o.Series[0].Data[0].Value)
	}
	json.Unmarshal([]byte(AcceptanceLengthOption(g, buckets)), &o)
	if o.Series[0].Data[0].Value != 1.8+1 {
		t.Errorf("mean acceptance length bucket 0 = %v, want 2.8 (bonus token included)", o.Series[0].Data[0].Value)
	}
}

func TestSplitUnit(t *testing.T) {
	for in, want := range map[string][2]string{
		"60.0 %":              {"60.0", "%"},
		"2.80 tokens/draft":   {"2.80", "tokens/draft"},
		"0.042 drafts/s":      {"0.042", "drafts/s"},
		compute.Undefined:     {"", ""},
		"unknown":             {"", ""},
		"12.3 tokens/s extra": {"12.3", "tokens/s extra"},
	} {
		num, unit, _ := splitUnit(in)
		if num != want[0] || unit != want[1] {
			t.Errorf("splitUnit(%q) = %q, %q", in, num, unit)
		}
	}
}

// The headline numbers and their hooks, rendered by go-app's test engine
// (no browser: OnMount does not run).
func TestRenderHeadline(t *testing.T) {
	d := &Dashboard{}
	e := app.NewTestEngine()
	if err := e.Load(d); err != nil {
		t.Fatal(err)
	}
	s := seedStats()
	d.res = &Result{Stats: s, Grid: compute.Grid{Start: 0, End: 10_000, Step: 10_000}, At: time.Unix(0, 0)}
	ui := d.renderHeadline(s)
	cases := []struct {
		path      []int
		name, val string
	}{
		{[]int{0, 1}, "acceptance-rate", "0.6"},
		{[]int{1, 1}, "mean-acceptance-length", "2.8"},
		{[]int{2, 1}, "k", "3"},
		{[]int{3, 1}, "drafts-per-second", "0.5"},
		{[]int{4, 1}, "accepted-throughput", "0.9"},
		{[]int{5, 1}, "drafted-throughput", "1.5"},
	}
	for _, c := range cases {
		want := app.Div().Class("metric-value").DataSet("metric", c.name).DataSet("value", c.val)
		if err := app.Match(want, ui, c.path...); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}

	// No drafts: no data-value, "no drafts in window", never NaN.
	none := compute.Derive(compute.Counts{AcceptedPerPosition: []float64{0, 0}}, 60, compute.WithBonus)
	ui = d.renderHeadline(none)
	want := app.Div().Class("metric-value", "undefined").DataSet("metric", "acceptance-rate").DataSet("undefined", "true").Text(compute.Undefined)
	if err := app.Match(want, ui, 0, 1); err != nil {
		t.Errorf("undefined acceptance rate: %v", err)
	}
}

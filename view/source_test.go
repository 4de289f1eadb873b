package view

import (
	"net/url"
	"reflect"
	"testing"
	"time"

	"specdash/metricsclient"
)

// TestUnknownSource: a ?source= that names no configured source is flagged
// (the page shows the default one), a configured one is not, and nothing is
// flagged without a source list.
func TestUnknownSource(t *testing.T) {
	list := []SourceInfo{{Name: "prod", Default: true}, {Name: "lab"}}
	for _, c := range []struct {
		list []SourceInfo
		name string
		want bool
	}{
		{list, "nope", true},
		{list, "lab", false},
		{list, "", false},
		{nil, "nope", false},
	} {
		if got := UnknownSource(c.list, c.name); got != c.want {
			t.Errorf("unknownSource(%v, %q) = %v, want %v", c.list, c.name, got, c.want)
		}
	}
	u, _ := url.Parse("/?source=nope")
	if s, ok := PickSource(list, u); !ok || s.Name != "prod" {
		t.Errorf("pickSource(?source=nope) = %v, %v; want the default, prod", s, ok)
	}
}

// TestSources: the server's source list round-trips through EnvSources,
// and the page reads its address, label and scrape interval from the
// chosen source.
func TestSources(t *testing.T) {
	list := []SourceInfo{
		{Name: "main", Label: "prom:9090", Kind: KindPrometheus, ScrapeInterval: "15s", Default: true},
		{Name: "lab", Label: "embedded", Kind: KindEmbedded, ScrapeInterval: "5s"},
	}
	back := DecodeSources(EncodeSources(list))
	if !reflect.DeepEqual(back, list) {
		t.Fatalf("round trip: %+v", back)
	}
	if DecodeSources("") != nil || DecodeSources("{") != nil {
		t.Error("an empty or broken list decodes to sources")
	}
	u, _ := url.Parse("http://h/?source=lab&range=1h")
	s, ok := PickSource(back, u)
	if !ok || s.Name != "lab" || SourceAddress(s, ok) != "/prom/s/lab" {
		t.Errorf("lab: %+v %v %q", s, ok, SourceAddress(s, ok))
	}
	if label, scrape := SourceSettings(s, ok, "x", time.Minute); label != "embedded" || scrape != 5*time.Second {
		t.Errorf("lab settings: %q %v", label, scrape)
	}
	def, ok := PickSource(back, nil)
	if def.Name != "main" || SourceAddress(def, ok) != ProxyAddress {
		t.Errorf("default: %+v %q", def, SourceAddress(def, ok))
	}
	if label, scrape := SourceSettings(SourceInfo{}, false, "x", time.Minute); label != "x" || scrape != time.Minute || SourceAddress(SourceInfo{}, false) != ProxyAddress {
		t.Errorf("no list: %q %v", label, scrape)
	}
	// Switching source keeps only the view settings.
	u, _ = url.Parse("http://h/?source=main&range=1h&model=a&refresh=5s&f.job=x")
	if got := SwitchSource(*u, "lab"); got != "http://h/?range=1h&refresh=5s&source=lab" {
		t.Errorf("switch: %q", got)
	}
}

// TestTargetsSummary: an embedded source's line counts its targets up and
// down; a failed poll shows none as down and says why.
func TestTargetsSummary(t *testing.T) {
	emb := SourceInfo{Name: "lab", Label: "embedded", Kind: KindEmbedded}
	ts := []metricsclient.Target{{URL: "a", Health: "up"}, {URL: "b", Health: "down"}, {URL: "c", Health: "unknown"}}
	if s := TargetsSummary(emb, ts, ""); s != "embedded, scraping 3 targets: 1 up, 1 down" {
		t.Errorf("summary %q", s)
	}
	if s := TargetsSummary(emb, ts[:1], ""); s != "embedded, scraping 1 target: 1 up, 0 down" {
		t.Errorf("one target %q", s)
	}
	if s := TargetsSummary(emb, ts, "target status unavailable: x"); s != "embedded: target status unknown, the specdash server is unreachable" {
		t.Errorf("unreachable %q", s)
	}
	if s := TargetsSummary(SourceInfo{Label: "prom:9090", Kind: KindPrometheus}, ts, ""); s != "prom:9090" {
		t.Errorf("prometheus %q", s)
	}
	if DownTargets(ts, "") != 1 || DownTargets(ts, "failed") != 0 {
		t.Errorf("down %d / %d", DownTargets(ts, ""), DownTargets(ts, "failed"))
	}
	// Times as the source gives them (UTC), shown in the page's zone.
	at := time.Date(2026, 12, 1, 14, 2, 10, 0, time.UTC)
	ny := time.FixedZone("UTC-5", -5*3600)
	if msg, stale := TargetDown(ts[1], at, time.UTC); msg != "scrape failed" || stale != "; its last numbers are kept and shown as they were (stale since 14:02:10)" {
		t.Errorf("down target: %q %q", msg, stale)
	}
	if _, stale := TargetDown(ts[1], at, ny); stale != "; its last numbers are kept and shown as they were (stale since 09:02:10)" {
		t.Errorf("down target, page 5 h behind UTC: %q", stale)
	}
	if msg, stale := TargetDown(metricsclient.Target{LastError: "EOF"}, time.Time{}, ny); msg != "EOF" || stale != "; any numbers it gave before are kept and shown as they were (stale)" {
		t.Errorf("down target without a good scrape: %q %q", msg, stale)
	}
	if s := TargetScraped(metricsclient.Target{Health: "up", LastScrape: at}, ny); s != " (scraped 09:02:10)" {
		t.Errorf("up target, page 5 h behind UTC: %q", s)
	}
	if s := TargetScraped(metricsclient.Target{Health: "up"}, ny); s != "" {
		t.Errorf("up target never scraped: %q", s)
	}
}

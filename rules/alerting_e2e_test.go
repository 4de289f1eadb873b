package rules

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"specdash/internal/promtest"
	"specdash/metricsclient"
	"specdash/simulate"
)

// startSimulator serves a running simulator on a loopback port until the
// test ends.
func startSimulator(t *testing.T, cfg simulate.Config) (*simulate.Simulator, string) {
	t.Helper()
	sim, err := simulate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	served, ran := make(chan struct{}), make(chan struct{})
	go func() { _ = hs.Serve(l); close(served) }()
	go func() { _ = sim.Run(ctx); close(ran) }()
	t.Cleanup(func() {
		cancel()
		_ = hs.Close()
		<-served
		<-ran
	})
	return sim, l.Addr().String()
}

// poll calls f every 200 ms until it returns true or the deadline passes
// (then the test fails with what). f may fail the test itself.
func poll(t *testing.T, timeout time.Duration, what string, f func() bool) {
	t.Helper()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(timeout)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %v", what, timeout)
		}
		<-tick.C
	}
}

// ours are the alerts of this package's rules.
func ours(t *testing.T, api v1.API) []v1.Alert {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := api.Alerts(ctx)
	if err != nil {
		t.Fatalf("alerts API: %v", err)
	}
	var out []v1.Alert
	for _, a := range res.Alerts {
		if strings.HasPrefix(string(a.Labels[model.AlertNameLabel]), "SpecDecode") {
			out = append(out, a)
		}
	}
	return out
}

// TestAlertsOnLivePrometheus: a real Prometheus scrapes the simulator
// every second and evaluates the generated rules (schema detected from
// its data, as `specdash rules --prometheus.url` does) every second. While
// both models are healthy no alert is even pending over many evaluations
// with drafts flowing; after POST /control/pattern?mode=collapse for one
// model, its collapse alert fires, with its annotations, and the other
// model stays quiet.
func TestAlertsOnLivePrometheus(t *testing.T) {
	const bad, good = `Llama 3 "chat" 8B`, "org/healthy"
	_, addr := startSimulator(t, simulate.Config{
		Models: []string{bad, good}, Engines: 2, K: 4, Acceptance: []float64{0.8, 0.7, 0.6, 0.5},
		DraftsPerSecond: 50, Seed: 9,
	})
	prom := promtest.Start(t, promtest.Options{Targets: []string{addr}, ScrapeInterval: time.Second})
	api := prom.API(t)
	prom.WaitFor(t, `count(vllm:spec_decode_num_drafts_total > 0) == 4`, nil, 2*time.Minute)

	// Detect the schema like the command does.
	c, err := metricsclient.New(metricsclient.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	det, err := c.Detect(ctx, nil, time.Now().Add(-time.Hour), time.Now())
	if err != nil || det.Schema.ID != metricsclient.VLLMV1.ID {
		t.Fatalf("Detect: %v, %v; want vLLM V1", det.Schema.ID, err)
	}

	// Short window and for: so the test takes seconds, not minutes.
	const window = 10 * time.Second
	rulesFile := filepath.Join(t.TempDir(), "specdash_rules.yml")
	f, err := os.Create(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	err = Write(f, Options{Schema: det.Schema, Window: window, For: 3 * time.Second, Interval: time.Second, SpecdashURL: "http://specdash.test"})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.OpenFile(prom.ConfigFile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fmt.Fprintf(cfg, "rule_files:\n  - %q\n", rulesFile)
	if cerr := cfg.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(prom.URL+"/-/reload", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reload: %s", resp.Status)
	}

	rateName := RecordName("model", "acceptance_rate", "ratio_rate", window)
	draftsName := RecordName("model", "drafts", "rate", window)
	// Both models busy (the idle guard passes) and their recorded
	// acceptance rate near the configured 46.6 %.
	prom.WaitFor(t, fmt.Sprintf(`count(%s > %g) == 2`, draftsName, 50.0/window.Seconds()), nil, 2*time.Minute)
	healthy := prom.WaitFor(t, fmt.Sprintf(`%s > 0.35 < 0.58`, rateName), func(v model.Vector) bool { return len(v) == 2 }, 2*time.Minute)
	t.Logf("healthy: %v", healthy)

	// Many evaluations of the alerting rules on busy, healthy data: no
	// alert, not even pending.
	busySince := time.Now()
	evaluations := 0
	poll(t, 2*time.Minute, "8 s of alert evaluations", func() bool {
		if a := ours(t, api); len(a) > 0 {
			t.Fatalf("alerts while healthy: %v", a)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		rs, err := api.Rules(ctx, nil)
		if err != nil {
			t.Fatalf("rules API: %v", err)
		}
		for _, g := range rs.Groups {
			for _, r := range g.Rules {
				if ar, ok := r.(v1.AlertingRule); ok && ar.Name == AlertCollapse {
					switch ar.Health {
					case v1.RuleHealthUnknown:
						return false // its group has not been evaluated yet
					case v1.RuleHealthBad:
						t.Fatalf("collapse rule health %q: %s", ar.Health, ar.LastError)
					}
					evaluations = int(ar.LastEvaluation.Sub(busySince) / time.Second)
					return ar.LastEvaluation.After(busySince.Add(8 * time.Second))
				}
			}
		}
		return false
	})
	t.Logf("no alert over about %d evaluations while healthy", evaluations)

	// Collapse one model.
	resp, err = http.Post("http://"+addr+"/control/pattern?mode=collapse&model="+url.QueryEscape(bad), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("switch to collapse: %s", resp.Status)
	}
	var fired v1.Alert
	poll(t, 3*time.Minute, "firing collapse alert", func() bool {
		for _, a := range ours(t, api) {
			if a.Labels["model_name"] == good {
				t.Fatalf("alert for the healthy model: %v", a)
			}
			if a.Labels[model.AlertNameLabel] != AlertCollapse {
				t.Fatalf("unexpected alert: %v", a)
			}
			if a.State == v1.AlertStateFiring {
				fired = a
				return true
			}
		}
		return false
	})
	if fired.Labels["model_name"] != bad || fired.Labels["severity"] != "critical" {
		t.Errorf("fired alert labels %v", fired.Labels)
	}
	wantURL := "http://specdash.test/?range=1h&model=" + url.QueryEscape(bad) + "&group=engine"
	if got := string(fired.Annotations["specdash_url"]); got != wantURL {
		t.Errorf("specdash_url %q, want %q", got, wantURL)
	}
	if d := string(fired.Annotations["description"]); !strings.Contains(d, "(mean acceptance length 1.0") || !strings.Contains(d, "over the last 10s") {
		t.Errorf("description %q lacks the mean acceptance length or window", d)
	}
	if s := string(fired.Annotations["summary"]); s != "Speculative decoding collapsed for model_name "+bad+": drafts flow but almost none is accepted" {
		t.Errorf("summary %q", s)
	}
}

package report

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"specdash/compute"
	"specdash/logparse"
)

// runCLIStdin runs the built specdash with args and stdin.
func runCLIStdin(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildCLI(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run specdash %q: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// TestCLIFromLog runs `specdash report --from-log` on the reference and
// PR 16665 lines (docs/METRICS.md "Known answers"), a scrape, and garbage.
func TestCLIFromLog(t *testing.T) {
	ref := "../logparse/testdata/reference.log"
	out, errOut, code := runCLIStdin(t, "", "report", "--from-log", ref)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Each current-form line is reproduced on its source's line.
	for _, line := range strings.Split(strings.TrimSpace(readLog(t, "reference.log")), "\n") {
		if m := afterMarker(line); strings.HasPrefix(m, "SpecDecoding") && !strings.Contains(out, ": "+m+"\n") {
			t.Errorf("output lacks %q:\n%s", m, out)
		}
	}
	for _, want := range []string{
		`{container="vllm-0", engine="0", format="V1"}: SpecDecoding metrics: Mean acceptance length: 2.33,`,
		"drafts are derived as drafted / k",
		"  derived, not printed by vLLM: drafts = drafted / k;",
		// k = 4, accepted 464 of 828: drafts 207, L = 1 + 464/207 =
		// 3.2415; 3.2415 / (1 + 0.05·4) = 2.7013 -> 2.70x.
		"  speedup: 2.70x = tokens per target pass 3.24 (1 + accepted/drafts) / (1 + c 0.05 x k 4)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// A PR 16665 line on stdin, JSON, per-group cost 0 for its (empty) source:
	// k = 4, drafts 2384/4 = 596, L = 1 + 686/596 = 2.151007; at c = 0.1:
	// 2.151007 / 1.4 = 1.536433.
	seed := strings.SplitN(readLog(t, "seed_000.log"), "\n", 2)[0]
	out, errOut, code = runCLIStdin(t, seed+"\n", "report", "--from-log=-", "--format=json", "--draft-cost-ratio=0.1", "--convention=no-bonus")
	if code != 0 {
		t.Fatalf("stdin: exit %d: %s", code, errOut)
	}
	var doc struct {
		Input string `json:"input"`
		File  string `json:"file"`
		Total struct {
			Drafts  float64  `json:"drafts"`
			MeanLen float64  `json:"mean_acceptance_length"`
			Derived []string `json:"derived"`
			Speedup struct {
				Speedup float64 `json:"speedup"`
			} `json:"speedup"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if doc.Input != "log" || doc.File != "stdin" || doc.Total.Drafts != 596 || !closeTo(doc.Total.MeanLen, 686.0/596) ||
		!closeTo(doc.Total.Speedup.Speedup, (1+686.0/596)/1.4) || len(doc.Total.Derived) == 0 || doc.Total.Derived[0] != "drafts" {
		t.Errorf("stdin JSON %+v\n%s", doc, out)
	}

	// A scrape file is recognised.
	out, _, code = runCLIStdin(t, "", "report", "--from-log", "../logparse/testdata/scrape.txt")
	if code != 0 || !strings.HasPrefix(out, `scrape "../logparse/testdata/scrape.txt": 3 counter groups`) {
		t.Errorf("scrape: exit %d\n%s", code, out)
	}

	// A bad line among good ones: listed on stderr with its number, exit 0
	// (stdin spelled "--from-log -", which kingpin alone would drop).
	out, errOut, code = runCLIStdin(t, seed+"\n"+seed[:100]+"\n", "report", "--from-log", "-")
	if code != 0 || !strings.HasPrefix(errOut, "stdin line 2: ") || !strings.Contains(out, "total: ") {
		t.Errorf("bad line: exit %d stderr %q", code, errOut)
	}
	// Garbage: a clear message and a non-zero exit.
	_, errOut, code = runCLIStdin(t, "not a log\n", "report", "--from-log=-")
	if code == 0 || !strings.Contains(errOut, "no vLLM speculative-decoding log line") {
		t.Errorf("garbage: exit %d stderr %q", code, errOut)
	}
	_, errOut, code = runCLIStdin(t, "", "report", "--from-log=/nonexistent/x.log")
	if code == 0 || !strings.Contains(errOut, "--from-log: open /nonexistent/x.log") {
		t.Errorf("missing file: exit %d stderr %q", code, errOut)
	}
	_, errOut, code = runCLIStdin(t, "", "report", "--from-log", ref, "--draft-cost-ratio=cheap")
	if code == 0 || !strings.Contains(errOut, `draft cost ratio "cheap": want a number >= 0`) {
		t.Errorf("bad cost: exit %d stderr %q", code, errOut)
	}
}

// The PR 16665 log (testdata/seed_000.log) holds seven k = 4 lines and one
// k = 3 line: one group per
// k, a warning naming both, no "shorter than k" note on the total (the
// drafts were not shorter: the lines had different k); labels without a
// value are not printed; a single group is printed once (as the total).
func TestFromLogGroupsByK(t *testing.T) {
	r := ParseInput("seed.log", readLog(t, "seed_000.log"), compute.WithBonus, nil)
	if len(r.Groups) != 2 || r.Groups[0].K != 3 || r.Groups[1].K != 4 || r.Groups[0].Labels["k"] != "3" || !slices.Contains(r.GroupBy, "k") {
		t.Fatalf("groups %+v (group by %q), want k = 3 and k = 4", r.Groups, r.GroupBy)
	}
	// k = 3: 754 of 2574 drafted, drafts 2574/3 = 858; k = 4: the other
	// seven lines, 21961 - 754 = 21207 of 69622 - 2574 = 67048, drafts
	// 67048/4 = 16762.
	g3, g4 := r.Groups[0], r.Groups[1]
	if g3.Drafts != 858 || g3.AcceptedTokens != 754 || g4.Drafts != 16762 || g4.AcceptedTokens != 21207 || g4.DraftTokens != 67048 {
		t.Errorf("k = 3: %v drafts %v accepted; k = 4: %v drafts %v accepted of %v", g3.Drafts, g3.AcceptedTokens, g4.Drafts, g4.AcceptedTokens, g4.DraftTokens)
	}
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "different k (k = 3: 1 line from line 8; k = 4: 7 lines from line 1)") {
		t.Errorf("warnings %q, want the mixed-k warning first", r.Warnings)
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "sources") {
			t.Errorf("one source split by k is not several sources: %q", w)
		}
	}
	r.TextInsights = true
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, bad := range []string{"shorter than k", `container=""`, `engine=""`} {
		if strings.Contains(text, bad) {
			t.Errorf("text holds %q:\n%s", bad, text)
		}
	}
	for _, want := range []string{"\n{k=\"3\"}: SpecDecoding metrics: Mean acceptance length: 1.88,", "\n{k=\"4\"}: SpecDecoding metrics: Mean acceptance length: 2.27,", "\ntotal: "} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}

	// One line: one group, printed once, as the total.
	one := strings.SplitN(readLog(t, "seed_000.log"), "\n", 2)[0]
	r = ParseInput("one.log", one, compute.WithoutBonus, nil)
	b.Reset()
	r.WriteText(&b)
	if n := strings.Count(b.String(), "SpecDecoding metrics:"); n != 1 || strings.Contains(b.String(), "{") || len(r.Groups) != 1 || r.Groups[0].Labels["k"] != "" {
		t.Errorf("one group: %d metrics lines, labels %v:\n%s", n, r.Groups[0].Labels, b.String())
	}
	// One named source: named once, its numbers once.
	r = ParseInput("c.log", "vllm-0  | "+one, compute.WithoutBonus, nil)
	b.Reset()
	r.WriteText(&b)
	if n := strings.Count(b.String(), "SpecDecoding metrics:"); n != 1 || !strings.Contains(b.String(), "\none source: {container=\"vllm-0\"}\ntotal: ") {
		t.Errorf("one named source: %d metrics lines:\n%s", n, b.String())
	}
}

// TestFromLogWindowNull: a log without throughputs has no known window:
// window_seconds is null in JSON (undefined values are null), not 0; a
// current-form line's throughputs give it (drafted 434 tokens /
// 43.40 tokens/s = 10 s).
func TestFromLogWindowNull(t *testing.T) {
	for _, c := range []struct {
		line string
		want any
	}{
		{"INFO SpecDecoding metrics: Draft acceptance rate: 28.8%, Mean acceptance length: 1.15, Accepted: 686 tokens, Drafted: 2384 tokens, Per-position acceptance probabilities: 0.576, 0.327, 0.159, 0.089", nil},
		{"INFO SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 41.90 tokens/s, Drafted throughput: 43.40 tokens/s, Accepted: 419 tokens, Drafted: 434 tokens, Per-position acceptance rate: 0.982, 0.949, Avg Draft acceptance rate: 96.5%", 10.0},
	} {
		r := ParseInput("x.log", c.line+"\n", compute.WithBonus, nil)
		var b strings.Builder
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
			t.Fatal(err)
		}
		w, ok := got["window_seconds"]
		if !ok || w != c.want {
			t.Errorf("%.40s...: window_seconds %v (present %v), want %v", c.line, w, ok, c.want)
		}
		if got["input"] != "log" || got["total"] == nil || got["groups"] == nil {
			t.Errorf("the other fields are gone: %s", b.String())
		}
	}
}

// TestFromLogIdleWindow: a line of a window without drafts (nan ratios,
// 0 tokens/s) adds no counts and does not make the window unknown: the
// window is the other line's 10 s, and a warning says the idle window's
// length is not counted.
func TestFromLogIdleWindow(t *testing.T) {
	text := "INFO SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 41.90 tokens/s, Drafted throughput: 43.40 tokens/s, Accepted: 419 tokens, Drafted: 434 tokens, Per-position acceptance rate: 0.982, 0.949, Avg Draft acceptance rate: 96.5%\n" +
		"INFO SpecDecoding metrics: Mean acceptance length: nan, Accepted throughput: 0.00 tokens/s, Drafted throughput: 0.00 tokens/s, Accepted: 0 tokens, Drafted: 0 tokens, Per-position acceptance rate: nan, nan, Avg Draft acceptance rate: nan%\n"
	r := ParseInput("x.log", text, compute.WithBonus, nil)
	if r.Entries != 2 || len(r.Problems) != 0 || len(r.Groups) != 1 {
		t.Fatalf("entries %d, problems %+v, groups %d; want 2 entries in one group", r.Entries, r.Problems, len(r.Groups))
	}
	if r.WindowSeconds != 10 || r.Total.Drafts != 217 || r.Total.AcceptedTokens != 419 {
		t.Errorf("window %v s, drafts %v, accepted %v; want 10 s, 434/2 = 217, 419", r.WindowSeconds, r.Total.Drafts, r.Total.AcceptedTokens)
	}
	if v := r.Total.DraftedThroughput; !v.OK || v.V != 43.4 {
		t.Errorf("drafted throughput %v, want 43.4 tokens/s", v)
	}
	if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], "1 line without drafts") {
		t.Errorf("warnings %q, want the idle-window one", r.Warnings)
	}
	// In the other convention: the line with drafts is named, the idle one
	// (no mean printed) is not.
	r = ParseInput("x.log", text, compute.WithoutBonus, nil)
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "1 lines (first: line 1) printed the mean acceptance length")
	}) {
		t.Errorf("warnings %q, want the convention one for line 1 only", r.Warnings)
	}
}

// A log of one healthy and one collapsed engine: each source and the
// total get a health verdict, in text and JSON, as the Prometheus report
// has (the verdict's rules are compute.Health's).
func TestFromLogHealth(t *testing.T) {
	text := `(EngineCore_DP0 pid=1) INFO 06-01 10:00:00 [metrics.py:100] SpecDecoding metrics: Mean acceptance length: 3.40, Accepted throughput: 240.00 tokens/s, Drafted throughput: 300.00 tokens/s, Accepted: 2400 tokens, Drafted: 3000 tokens, Per-position acceptance rate: 0.900, 0.800, 0.700, Avg Draft acceptance rate: 80.0%
(EngineCore_DP1 pid=2) INFO 06-01 10:00:00 [metrics.py:100] SpecDecoding metrics: Mean acceptance length: 1.03, Accepted throughput: 3.00 tokens/s, Drafted throughput: 300.00 tokens/s, Accepted: 30 tokens, Drafted: 3000 tokens, Per-position acceptance rate: 0.030, 0.000, 0.000, Avg Draft acceptance rate: 1.0%
`
	r := FromLog("t.log", logparse.Parse(text), compute.WithBonus, nil)
	if len(r.Groups) != 2 || r.Groups[0].Health == nil || r.Groups[1].Health == nil || r.Total.Health == nil {
		t.Fatalf("groups %d, verdicts missing: %+v", len(r.Groups), r.Groups)
	}
	if got := r.Groups[0].Health.State; got != compute.Healthy {
		t.Errorf("engine 0 (80 %% accepted): %v, want healthy", got)
	}
	if got := r.Groups[1].Health.State; got != compute.Collapsed {
		t.Errorf("engine 1 (1 %% accepted): %v, want collapsed", got)
	}
	if got := r.Total.Health.State; got != compute.Healthy {
		t.Errorf("total (40.5 %% accepted): %v, want healthy", got)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  health: healthy - acceptance rate 80.0 % over the last 10s, mean acceptance length 3.40\n",
		"  health: collapsed - drafts 100/s but mean acceptance length 1.03 over the last 10s",
		"    evidence: acceptance rate 1.0 % (95 % interval",
		"  health: healthy - acceptance rate 40.5 %, mean acceptance length 2.21\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	var j strings.Builder
	if err := r.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Groups []struct {
			Health struct {
				State string `json:"state"`
			} `json:"health"`
		} `json:"groups"`
		Total struct {
			Health struct {
				State string `json:"state"`
			} `json:"health"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(j.String()), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Groups) != 2 || out.Groups[1].Health.State != "collapsed" || out.Total.Health.State != "healthy" {
		t.Errorf("JSON health: %+v", out)
	}
}

// TestFromLogHeaderCounts: the header counts in the singular for one
// ("1 metrics line (current) of 1 line", not "1 metrics lines ... of 1
// lines") and in the plural otherwise.
func TestFromLogHeaderCounts(t *testing.T) {
	line := "INFO SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 41.90 tokens/s, Drafted throughput: 43.40 tokens/s, Accepted: 419 tokens, Drafted: 434 tokens, Per-position acceptance rate: 0.982, 0.949, Avg Draft acceptance rate: 96.5%\n"
	for _, c := range []struct {
		text, want string
	}{
		{line, `log "x.log": 1 metrics line (current) of 1 line, window 10s,`},
		{line + line, `log "x.log": 2 metrics lines (current) of 2 lines, window 20s,`},
	} {
		var b strings.Builder
		if err := ParseInput("x.log", c.text, compute.WithBonus, nil).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), c.want) {
			t.Errorf("header %q, want it to start %q", strings.SplitN(b.String(), "\n", 2)[0], c.want)
		}
	}
}

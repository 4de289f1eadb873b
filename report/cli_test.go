package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"specdash/internal/fixtures"
	"specdash/internal/promtest"
	"specdash/metricsclient"
)

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
)

// buildCLI builds cmd/specdash with `go build` once per test binary and
// returns its path. It fails the test when go or the build fails.
func buildCLI(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			cliErr = fmt.Errorf("go not found: %v", err)
			return
		}
		dir, err := tempDirOutsideTest()
		if err != nil {
			cliErr = err
			return
		}
		cliPath = filepath.Join(dir, "specdash")
		// make build's flags: its compiled packages are reused.
		out, err := exec.Command(goBin, "build", "-trimpath", "-o", cliPath, "specdash/cmd/specdash").CombinedOutput()
		if err != nil {
			cliErr = fmt.Errorf("go build specdash/cmd/specdash: %v\n%s", err, out)
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliPath
}

// runCLI runs the built specdash with args and returns stdout, stderr and
// the exit code.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildCLI(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run specdash %q: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// linear backfills two models (engine "0", k = 2) whose counters grow
// linearly every 15 s for 10 minutes from base: model j (1-based) at
// sample i has drafts 10ji, draft tokens 20ji, accepted 13ji, per position
// [8ji, 5ji].
func backfillLinear(t *testing.T, base int64, models []string) *promtest.Server {
	var b strings.Builder
	fams := []struct {
		name string
		pos  int
		mul  int
	}{
		{"vllm:spec_decode_num_drafts", -1, 10},
		{"vllm:spec_decode_num_draft_tokens", -1, 20},
		{"vllm:spec_decode_num_accepted_tokens", -1, 13},
		{"vllm:spec_decode_num_accepted_tokens_per_pos", 0, 8},
		{"vllm:spec_decode_num_accepted_tokens_per_pos", 1, 5},
	}
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	last := ""
	for _, f := range fams {
		if f.name != last {
			fmt.Fprintf(&b, "# TYPE %s counter\n", f.name)
			last = f.name
		}
		for j, m := range models {
			pos := ""
			if f.pos >= 0 {
				pos = fmt.Sprintf(`,position="%d"`, f.pos)
			}
			for i := 0; i <= 40; i++ {
				fmt.Fprintf(&b, "%s_total{engine=\"0\",model_name=\"%s\"%s} %d %d\n", f.name, esc.Replace(m), pos, f.mul*(j+1)*i, base+int64(15*i))
			}
		}
	}
	b.WriteString("# EOF\n")
	return promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, b.String())})
}

func TestCLI(t *testing.T) {
	models := []string{`a "quoted" \ model`, "b"}
	base := time.Now().Add(-3*time.Hour).Unix() / 600 * 600
	srv := backfillLinear(t, base, models)
	end := time.Unix(base+600, 0).UTC()
	noRange := []string{"report", "--prometheus.url=" + srv.URL, "--end=" + end.Format(time.RFC3339), "--scrape-interval=15s"}
	common := with(noRange, "--range=10m")

	out, errOut, code := runCLI(t, with(common, "--format=json", "--group-by=model_name")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The CLI's JSON equals Build's.
	c, err := metricsclient.New(metricsclient.Config{Address: srv.URL, ScrapeInterval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(t.Context(), c, Options{Range: 10 * time.Minute, End: end, GroupBy: []string{"model_name"}})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := res.WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	if out != want.String() {
		t.Errorf("CLI JSON\n%s\nBuild JSON\n%s", out, want.String())
	}
	var doc struct {
		Window float64 `json:"window_seconds"`
		Step   float64 `json:"step_seconds"`
		Groups []struct {
			Labels  map[string]string `json:"labels"`
			Drafts  float64           `json:"drafts"`
			PerPos  []float64         `json:"accepted_per_position"`
			Rate    *float64          `json:"acceptance_rate"`
			MeanLen *float64          `json:"mean_acceptance_length"`
		} `json:"groups"`
		Total struct {
			Drafts, DraftTokens, Accepted float64
			MeanLen                       *float64 `json:"mean_acceptance_length"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// 40 steps of 15 s: model j has 400j drafts, 520j accepted of 800j, per
	// position [320j, 200j].
	if doc.Window != 600 || doc.Step != 15 || len(doc.Groups) != 2 {
		t.Fatalf("window %v step %v groups %d", doc.Window, doc.Step, len(doc.Groups))
	}
	for j, g := range doc.Groups {
		n := float64(j + 1)
		if g.Labels["model_name"] != models[j] || g.Drafts != 400*n || !reflect.DeepEqual(g.PerPos, []float64{320 * n, 200 * n}) ||
			g.Rate == nil || *g.Rate != 520.0/800 || g.MeanLen == nil || *g.MeanLen != 1+520.0/400 {
			t.Errorf("group %d: %+v", j, g)
		}
	}
	if doc.Total.MeanLen == nil || *doc.Total.MeanLen != 1+1560.0/1200 {
		t.Errorf("total mean length %v", doc.Total.MeanLen)
	}

	// Text: one log line per group and a total line; the no-bonus convention.
	out, errOut, code = runCLI(t, with(common, "--group-by=model_name", "--filter=model_name="+models[0], "--convention=no-bonus")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantText := `window 10m0s (` + end.Add(-10*time.Minute).Format(time.RFC3339) + ` to ` + end.Format(time.RFC3339) + `), step 15s, mean acceptance length without bonus token (accepted/drafts)
{model_name="a \"quoted\" \\ model"}: SpecDecoding metrics: Mean acceptance length: 1.30, Accepted throughput: 0.87 tokens/s, Drafted throughput: 1.33 tokens/s, Accepted: 520 tokens, Drafted: 800 tokens, Per-position acceptance rate: 0.800, 0.500, Avg Draft acceptance rate: 65.0%
  health: healthy - acceptance rate 65.0 % over the last 10m, mean acceptance length without bonus token 1.30
total: SpecDecoding metrics: Mean acceptance length: 1.30, Accepted throughput: 0.87 tokens/s, Drafted throughput: 1.33 tokens/s, Accepted: 520 tokens, Drafted: 800 tokens, Per-position acceptance rate: 0.800, 0.500, Avg Draft acceptance rate: 65.0%
  health: healthy - acceptance rate 65.0 % over the last 10m, mean acceptance length without bonus token 1.30
`
	if out != wantText {
		t.Errorf("text\n%s\nwant\n%s", out, wantText)
	}

	// Repeated --filter for one label: any of the values.
	out, errOut, code = runCLI(t, with(common, "--format=json", "--filter=model_name=b", "--filter=model_name="+models[0])...)
	if code != 0 || !strings.Contains(out, `"drafts": 1200,`) {
		t.Errorf("two values: exit %d, %s\n%s", code, errOut, out)
	}

	// An absent model: exit non-zero with the MissingMetricsError message.
	_, errOut, code = runCLI(t, with(common, "--filter=model_name=absent")...)
	if code == 0 || !strings.Contains(errOut, "no vLLM V1 speculative-decoding metrics") ||
		!strings.Contains(errOut, `model_name values present: "a \"quoted\" \\ model", "b"`) {
		t.Errorf("absent model: exit %d, stderr %s", code, errOut)
	}

	// Bad input: clear messages, non-zero exits.
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"report"}, "required flag(s) '--prometheus.url' not provided"},
		{with(noRange, "--range=ten"), `--range="ten"`},
		{with(noRange, "--range=0s"), "--range must be positive"},
		{[]string{"report", "--prometheus.url=" + srv.URL, "--end=yesterday"}, "want RFC 3339"},
		{with(common, "--filter=model_name"), "want label=value"},
		{with(common, "--group-by=bad-label"), `invalid label name "bad-label"`},
		{with(common, "--format=xml"), "enum value must be one of text,json"},
		{with(common, "--convention=maybe"), "enum value must be one of bonus,no-bonus"},
		{with(noRange, "--step=1s", "--range=30d"), "more than Prometheus' limit of 11000"},
		{[]string{"report", "--prometheus.url=localhost:9090"}, "--prometheus.url: invalid Prometheus address"},
	} {
		_, errOut, code := runCLI(t, c.args...)
		if code == 0 || !strings.Contains(errOut, c.msg) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args[1:], code, errOut, c.msg)
		}
	}
}

// tempDirOutsideTest returns a directory for the built binary shared by
// the tests of this package (t.TempDir would vanish after the first test).
func tempDirOutsideTest() (string, error) {
	return os.MkdirTemp("", "specdash-report-test-")
}

// with returns a new slice: base followed by extra (never aliasing base).
func with(base []string, extra ...string) []string {
	return append(append([]string(nil), base...), extra...)
}

// TestCLIV0K: vLLM V0 exports no k, so the windowed system efficiency of
// the V0 fixture (emitted 10616 of 17748 possible tokens at k = 3: 0.598)
// needs --k; without it the text says what to give.
func TestCLIV0K(t *testing.T) {
	fx := fixtures.SchemaVLLMV0()
	srv := promtest.Start(t, promtest.Options{DataDir: promtest.Backfill(t, fixtures.SchemaOpenMetrics(fx))})
	end := time.Unix(fixtures.SchemaEndUnix, 0).UTC().Format(time.RFC3339)
	common := []string{"report", "--prometheus.url=" + srv.URL, "--range=10m", "--step=15s", "--end=" + end}
	out, errOut, code := runCLI(t, append(common, "--k=3")...)
	if code != 0 || !strings.Contains(out, "system efficiency 0.598,") {
		t.Errorf("--k=3: exit %d, stdout:\n%s\nstderr: %s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, append(common, "--format=json")...)
	if code != 0 || !strings.Contains(out, `"system_efficiency": null`) || !strings.Contains(out, "specdash report --k") {
		t.Errorf("no --k: exit %d, stdout:\n%s\nstderr: %s", code, out, errOut)
	}
	_, errOut, code = runCLI(t, append(common, "--k=-1")...)
	if code == 0 || !strings.Contains(errOut, "--k=-1") {
		t.Errorf("--k=-1: exit %d, stderr %q, want an error naming the flag", code, errOut)
	}
}

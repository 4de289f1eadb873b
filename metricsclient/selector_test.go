package metricsclient

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// nasty are model names that must survive escaping intact.
var nasty = []string{
	"meta-llama/Llama 3 8B",
	`say "hi"`,
	`back\slash`,
	"new\nline",
	"a|b",
	".*",
	"<img src=x onerror=alert(1)>",
	"ünïcødé 模型 🚀",
	"tab\there",
	`\"}` + ` or vector(1) #`,
}

func TestSelectorExact(t *testing.T) {
	cases := []struct {
		names   []string
		filters []Filter
		want    string
	}{
		{[]string{"a"}, nil, `{__name__="a"}`},
		{[]string{"vllm:x_total", "vllm:y_total"}, nil, `{__name__=~"vllm:x_total|vllm:y_total"}`},
		{[]string{"a"}, []Filter{{Name: "model_name", Values: []string{`say "hi"`}}}, `{__name__="a", model_name="say \"hi\""}`},
		{[]string{"a"}, []Filter{{Name: "model_name", Values: []string{`back\slash`}}}, `{__name__="a", model_name="back\\slash"}`},
		{[]string{"a"}, []Filter{{Name: "model_name", Values: []string{"new\nline"}}}, `{__name__="a", model_name="new\nline"}`},
		{[]string{"a"}, []Filter{{Name: "m", Values: []string{"x.y", "a|b"}}}, `{__name__="a", m=~"x\\.y|a\\|b"}`},
		{[]string{"a"}, []Filter{{Name: "m", Values: []string{".*", `\`}}}, `{__name__="a", m=~"\\.\\*|\\\\"}`},
		// Duplicates collapse to the single-value form; empty filters vanish.
		{[]string{"a"}, []Filter{{Name: "m", Values: []string{"v", "v"}}, {Name: "engine"}}, `{__name__="a", m="v"}`},
		{[]string{"a"}, []Filter{{Name: "m", Values: []string{"v"}}, {Name: "engine", Values: []string{"0", "1"}}}, `{__name__="a", m="v", engine=~"0|1"}`},
		{[]string{"a"}, []Filter{{Name: "m", Values: []string{"<img src=x onerror=alert(1)>"}}}, `{__name__="a", m="<img src=x onerror=alert(1)>"}`},
	}
	for _, c := range cases {
		got, err := Selector(c.names, c.filters)
		if err != nil {
			t.Errorf("Selector(%q, %+v): %v", c.names, c.filters, err)
			continue
		}
		if got != c.want {
			t.Errorf("Selector(%q, %+v)\n got %s\nwant %s", c.names, c.filters, got, c.want)
		}
	}
}

// matcherValue parses `name="lit"` or `name=~"lit"` back, as Prometheus' lexer
// does (Go unquoting), and returns the operator and the decoded string.
func matcherValue(t *testing.T, m, name string) (op, val string) {
	t.Helper()
	rest, ok := strings.CutPrefix(m, name)
	if !ok {
		t.Fatalf("matcher %q does not start with %s", m, name)
	}
	if strings.HasPrefix(rest, "=~") {
		op, rest = "=~", rest[2:]
	} else {
		op, rest = "=", rest[1:]
	}
	v, err := strconv.Unquote(rest)
	if err != nil {
		t.Fatalf("literal %s of %q does not unquote: %v", rest, m, err)
	}
	return op, v
}

func TestMatcherRoundTrip(t *testing.T) {
	for _, v := range nasty {
		m, err := Matcher(Filter{Name: "model_name", Values: []string{v}})
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(m, "\n\t") {
			t.Errorf("matcher %q holds a raw control character", m)
		}
		op, got := matcherValue(t, m, "model_name")
		if op != "=" || got != v {
			t.Errorf("single value %q: matcher %s decodes to %s %q", v, m, op, got)
		}
	}
	// Several values: the decoded regexp, anchored as Prometheus anchors it,
	// matches exactly the given values and nothing else from the list.
	for i := range nasty {
		vals := []string{nasty[i], nasty[(i+1)%len(nasty)]}
		m, err := Matcher(Filter{Name: "model_name", Values: vals})
		if err != nil {
			t.Fatal(err)
		}
		op, re := matcherValue(t, m, "model_name")
		if op != "=~" {
			t.Fatalf("two values gave operator %s", op)
		}
		rx := regexp.MustCompile("^(?:" + re + ")$")
		for _, cand := range append(nasty, "", "x", "a", "b", "anything") {
			want := cand == vals[0] || cand == vals[1]
			if rx.MatchString(cand) != want {
				t.Errorf("regexp %q on %q: match %v, want %v", re, cand, !want, want)
			}
		}
	}
}

func TestSelectorErrors(t *testing.T) {
	cases := []struct {
		names   []string
		filters []Filter
		want    string
	}{
		{nil, nil, "no metric names"},
		{[]string{"a"}, []Filter{{Name: "", Values: []string{"x"}}}, "empty label name"},
		{[]string{"a"}, []Filter{{Name: "model name", Values: []string{"x"}}}, `invalid label name "model name"`},
		{[]string{"a"}, []Filter{{Name: "1abc", Values: []string{"x"}}}, `invalid label name "1abc"`},
		{[]string{"a"}, []Filter{{Name: `m"}`, Values: []string{"x"}}}, `invalid label name`},
		{[]string{"a"}, []Filter{{Name: "__name__", Values: []string{"x"}}}, "chooses the metric names"},
		{[]string{"a"}, []Filter{{Name: "position", Values: []string{"0"}}}, "draft position"},
		{[]string{"a"}, []Filter{{Name: "m", Values: []string{"\xff"}}}, "not valid UTF-8"},
	}
	for _, c := range cases {
		got, err := Selector(c.names, c.filters)
		if err == nil {
			t.Errorf("Selector(%q, %+v) = %s, want error %q", c.names, c.filters, got, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Selector(%q, %+v): error %q, want it to contain %q", c.names, c.filters, err, c.want)
		}
	}
}

func TestVLLMV1Selector(t *testing.T) {
	got, err := VLLMV1.Selector([]Filter{{Name: "model_name", Values: []string{"m"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{__name__=~"vllm:spec_decode_num_drafts_total|vllm:spec_decode_num_draft_tokens_total|vllm:spec_decode_num_accepted_tokens_total|vllm:spec_decode_num_accepted_tokens_per_pos_total", model_name="m"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if strings.Contains(got, "created") {
		t.Error("selector mentions _created")
	}
}

package metricsclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// noNetwork fails every request and counts them.
func noNetwork(n *atomic.Int32) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		n.Add(1)
		return nil, errors.New("no network: " + r.URL.Path)
	})
}

// checkReplay fetches r recorded (WithRecorder) through a client of addr,
// then the same fetch again through a client whose every request fails,
// with the recorded answers (WithAnswers): the second asks nothing and
// equals the first, and every answer was used.
func checkReplay(t *testing.T, addr string, cfg Config, r FetchRequest, groupBy []string) {
	t.Helper()
	cfg.Address = addr
	live, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder(0)
	want, wantSh, err := live.FetchShapedAuto(WithRecorder(t.Context(), rec), r, groupBy)
	if err != nil {
		t.Fatal(err)
	}
	text := rec.Encode()
	ans, err := DecodeAnswers(text)
	if err != nil || ans.Len() == 0 {
		t.Fatalf("recorded answers %q: %v", text, err)
	}
	n := ans.Len()
	var asked atomic.Int32
	cfg.RoundTripper = noNetwork(&asked)
	replay, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, gotSh, err := replay.FetchShapedAuto(WithAnswers(t.Context(), ans), r, groupBy)
	if err != nil {
		t.Fatalf("replayed fetch: %v", err)
	}
	if asked.Load() != 0 || ans.Len() != 0 {
		t.Errorf("replayed fetch asked the network %d times; %d of %d answers unused", asked.Load(), ans.Len(), n)
	}
	if !reflect.DeepEqual(got.Series, want.Series) || !reflect.DeepEqual(got.Labels, want.Labels) || !reflect.DeepEqual(got.Warnings, want.Warnings) ||
		!reflect.DeepEqual(gotSh.Series, wantSh.Series) {
		t.Errorf("replayed fetch differs from the recorded one")
	}
	// Each answer serves once: the same fetch again goes to the network.
	if _, _, err := replay.FetchShapedAuto(WithAnswers(t.Context(), ans), r, groupBy); err == nil || asked.Load() == 0 {
		t.Errorf("a second replay (err %v) asked the network %d times: want the answers used up", err, asked.Load())
	}
}

// TestAnswersTransport: the key reads a form body in any order of its
// fields; an answer past the limit, not JSON, or with an error status
// is not kept (a limit past leaves nothing: the browser then asks the
// proxy for every request); requests without a recorder or answers pass
// through untouched.
func TestAnswersTransport(t *testing.T) {
	body := `{"status":"success","data":{"resultType":"vector","result":[]}}`
	status := http.StatusOK
	var asked atomic.Int32
	up := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		asked.Add(1)
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	post := func(ctx context.Context, form string) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/prom/api/v1/query", strings.NewReader(form))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := answersTransport{rt: up}.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	read := func(resp *http.Response) string {
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}

	rec := NewRecorder(0)
	if got := read(post(WithRecorder(t.Context(), rec), "query=up&time=10")); got != body {
		t.Errorf("recorded request's body %q", got)
	}
	ans, err := DecodeAnswers(rec.Encode())
	if err != nil || ans.Len() != 1 {
		t.Fatalf("answers: %v, %d", err, ans.Len())
	}
	asked.Store(0)
	if got := read(post(WithAnswers(t.Context(), ans), "time=10&query=up")); got != body || asked.Load() != 0 {
		t.Errorf("replay with the form's fields in another order: body %q, asked %d", got, asked.Load())
	}
	if read(post(WithAnswers(t.Context(), ans), "time=10&query=up")); asked.Load() != 1 {
		t.Errorf("the answer served twice")
	}

	ans, _ = DecodeAnswers(rec.Encode())
	asked.Store(0)
	if post(WithAnswers(t.Context(), ans), "query=up&time=11"); asked.Load() != 1 || ans.Len() != 1 {
		t.Errorf("another time: asked %d, answers left %d: want the network, the answer kept", asked.Load(), ans.Len())
	}

	// A request recorded twice (a load that asked it twice) is answered
	// twice, then goes to the network.
	rec = NewRecorder(0)
	post(WithRecorder(t.Context(), rec), "query=up&time=12")
	post(WithRecorder(t.Context(), rec), "query=up&time=12")
	ans, _ = DecodeAnswers(rec.Encode())
	asked.Store(0)
	for i := range 3 {
		post(WithAnswers(t.Context(), ans), "query=up&time=12")
		if want := int32(max(0, i-1)); asked.Load() != want {
			t.Errorf("request %d of one recorded twice: asked %d, want %d", i+1, asked.Load(), want)
		}
	}

	for _, c := range []struct {
		name   string
		limit  int
		status int
		body   string
	}{
		{"past the limit", len(body) - 1, http.StatusOK, body},
		{"error status", 0, http.StatusServiceUnavailable, body},
		{"not JSON", 0, http.StatusOK, "<html>"},
	} {
		status, body = c.status, c.body
		rec := NewRecorder(c.limit)
		if got := read(post(WithRecorder(t.Context(), rec), url.Values{"query": {"up"}}.Encode())); got != c.body {
			t.Errorf("%s: the caller got %q, want the answer", c.name, got)
		}
		if s := rec.Encode(); s != "" {
			t.Errorf("%s: recorded %q, want nothing", c.name, s)
		}
	}
	if _, err := DecodeAnswers("not base64!"); err == nil {
		t.Error("DecodeAnswers of garbage: no error")
	}
}

package metricsclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// A load's answers, recorded where it ran and replayed where the very
// same load runs again: the server's pre-render of a page records the
// answers of its load (WithRecorder), the page carries them, and the
// browser's first load of that page, which asks the same requests at the
// pre-render's time (app/prerender.go firstLoadAt), takes them from there
// (WithAnswers) instead of asking the proxy again. An answer is keyed by
// its request (method, path, query and form body), so a request that
// differs in anything goes to the network as before; only successful
// (HTTP 200) JSON answers are recorded, and each is replayed once.
// Everything else of the load (decoding, compute) is the same code on
// the same bytes.

// DefaultRecordLimit bounds the bytes of answers a Recorder keeps: a
// page's load past it records nothing (the browser asks the proxy, as
// without a recording). A shaped load of a 1,024-engine fleet's 6 h
// window is ~0.2 MB of answers (docs/PERFORMANCE.md, "Scale").
const DefaultRecordLimit = 1 << 20

// Recorder keeps the answers of the requests made with a context from
// WithRecorder. It is safe for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	limit   int
	size    int
	over    bool
	answers []recorded
}

// recorded is one answer in Recorder.Encode's JSON.
type recorded struct {
	Key  string          `json:"k"`
	Body json.RawMessage `json:"b"`
}

// NewRecorder returns a Recorder that keeps at most limit bytes of
// answers (DefaultRecordLimit when limit <= 0).
func NewRecorder(limit int) *Recorder {
	if limit <= 0 {
		limit = DefaultRecordLimit
	}
	return &Recorder{limit: limit}
}

type recorderKey struct{}
type answersKey struct{}

// WithRecorder returns ctx with r: the answers of every request a Client
// makes with it are kept in r.
func WithRecorder(ctx context.Context, r *Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// Encode returns the recorded answers for Answers: base64 (standard) of
// their JSON; "" when none were recorded or they went past the limit.
func (r *Recorder) Encode() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.over || len(r.answers) == 0 {
		return ""
	}
	b, err := json.Marshal(r.answers)
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}

// keep records body as the answer to key.
func (r *Recorder) keep(key string, body []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.over {
		return
	}
	if r.size+len(body) > r.limit || !json.Valid(body) {
		r.over, r.answers = true, nil
		return
	}
	r.size += len(body)
	r.answers = append(r.answers, recorded{Key: key, Body: body})
}

// Answers are recorded answers (Recorder.Encode) to be replayed, in the
// order they were recorded per request: a load that asked one request
// twice finds both answers. It is safe for concurrent use.
type Answers struct {
	mu sync.Mutex
	m  map[string][][]byte
	n  int
}

// DecodeAnswers reads Recorder.Encode's text.
func DecodeAnswers(s string) (*Answers, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	var rs []recorded
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, err
	}
	a := &Answers{m: make(map[string][][]byte, len(rs)), n: len(rs)}
	for _, r := range rs {
		a.m[r.Key] = append(a.m[r.Key], r.Body)
	}
	return a, nil
}

// Len is the number of answers not replayed yet.
func (a *Answers) Len() int {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// take returns the next answer to key and forgets it.
func (a *Answers) take(key string) ([]byte, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.m[key]
	if len(q) == 0 {
		return nil, false
	}
	if len(q) == 1 {
		delete(a.m, key)
	} else {
		a.m[key] = q[1:]
	}
	a.n--
	return q[0], true
}

// WithAnswers returns ctx with a: a request a Client makes with it is
// answered from a when a holds its answer.
func WithAnswers(ctx context.Context, a *Answers) context.Context {
	if a == nil {
		return ctx
	}
	return context.WithValue(ctx, answersKey{}, a)
}

// maxKeyBody bounds the request body read for a key (a form of PromQL
// queries and times: a few kB).
const maxKeyBody = 1 << 20

// answerKey is r's key: method, path, the query and a form body, each
// in a canonical order. ok is false for a body that cannot be read again.
func answerKey(r *http.Request) (key string, ok bool) {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte(' ')
	b.WriteString(r.URL.Path)
	b.WriteByte('?')
	b.WriteString(r.URL.Query().Encode())
	if r.Body != nil && r.Body != http.NoBody {
		if r.GetBody == nil {
			return "", false
		}
		body, err := r.GetBody()
		if err != nil {
			return "", false
		}
		raw, err := io.ReadAll(io.LimitReader(body, maxKeyBody+1))
		body.Close()
		if err != nil || len(raw) > maxKeyBody {
			return "", false
		}
		b.WriteByte(' ')
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			form, err := url.ParseQuery(string(raw))
			if err != nil {
				return "", false
			}
			b.WriteString(form.Encode())
		} else {
			b.Write(raw)
		}
	}
	return b.String(), true
}

// answersTransport records and replays answers for the requests whose
// context asks for it (WithRecorder, WithAnswers); others pass through.
type answersTransport struct{ rt http.RoundTripper }

func (t answersTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec, _ := r.Context().Value(recorderKey{}).(*Recorder)
	ans, _ := r.Context().Value(answersKey{}).(*Answers)
	if rec == nil && ans == nil {
		return t.rt.RoundTrip(r)
	}
	key, ok := answerKey(r)
	if !ok {
		return t.rt.RoundTrip(r)
	}
	if ans != nil {
		if body, ok := ans.take(key); ok {
			return &http.Response{
				Status:        "200 OK",
				StatusCode:    http.StatusOK,
				Proto:         "HTTP/1.1",
				ProtoMajor:    1,
				ProtoMinor:    1,
				Header:        http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(body))}},
				Body:          io.NopCloser(bytes.NewReader(body)),
				ContentLength: int64(len(body)),
				Request:       r,
			}, nil
		}
	}
	resp, err := t.rt.RoundTrip(r)
	if err != nil || rec == nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	rec.keep(key, body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

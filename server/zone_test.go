package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"specdash/internal/fixtures"
	"specdash/view"
)

// TestPreRenderInBrowserZone: the pre-rendered page shows "local" times in
// the zone of the browser's view.ZoneCookie (web/static/boot.js), and says
// which offsets it used (data-zone-offsets, for web/static/preview.js);
// without the cookie, or with one that names no zone, in the server's own
// zone; with tz=utc in UTC, without offsets. The answer varies with the
// cookie.
func TestPreRenderInBrowserZone(t *testing.T) {
	base := fixturePage(t)
	w := fixtures.KnownAnswer().Whole
	q := url.Values{"from": {w.StartTime().Format(time.RFC3339)}, "to": {w.EndTime().Format(time.RFC3339)}}
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	offsets := func(loc *time.Location) string {
		_, a := w.StartTime().In(loc).Zone()
		_, b := w.EndTime().In(loc).Zone()
		return strconv.Itoa(a) + "," + strconv.Itoa(b)
	}
	for _, c := range []struct {
		name, cookie, tz string
		loc              *time.Location
		offsets          string
	}{
		{"no cookie", "", "", time.Local, offsets(time.Local)},
		{"browser's zone", "Asia/Kolkata", "", kolkata, "19800,19800"},
		{"not a zone", "Mars/Olympus_Mons", "", time.Local, offsets(time.Local)},
		{"not a name", "../../etc/passwd", "", time.Local, offsets(time.Local)},
		{"the server's Local", "Local", "", time.Local, offsets(time.Local)},
		{"page in UTC", "Asia/Kolkata", "utc", time.UTC, ""},
	} {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		if c.tz != "" {
			v.Set("tz", c.tz)
		}
		req, err := http.NewRequest(http.MethodGet, base+"/?"+v.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.cookie != "" {
			req.AddCookie(&http.Cookie{Name: view.ZoneCookie, Value: c.cookie})
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", c.name, resp.StatusCode, err)
		}
		page := string(b)
		if vary := resp.Header.Values("Vary"); !slices.Contains(vary, "Cookie") {
			t.Errorf("%s: Vary %q, want Cookie", c.name, vary)
		}
		root := tagWith(page, `data-dashboard="specdash"`)
		if attrOf(root, "data-state") != "preview" {
			t.Fatalf("%s: no numbers pre-rendered: %q", c.name, root)
		}
		if got := attrOf(root, "data-zone-offsets"); got != c.offsets {
			t.Errorf("%s: data-zone-offsets %q, want %q", c.name, got, c.offsets)
		}
		want := view.FormatLocalInput(w.StartTime().UnixMilli(), c.loc)
		if got := attrOf(tagWith(page, `id="from"`), "value"); got != want {
			t.Errorf("%s: From %q, want %q", c.name, got, want)
		}
		// The zone named as the live page names it (view.BrowserNamed):
		// the window's summary and footer say UTC+5:30, not IST.
		if c.loc == kolkata && (!strings.Contains(page, "UTC+5:30") || strings.Contains(page, " IST")) {
			t.Errorf("%s: the zone is not named UTC+5:30 (as in the browser) throughout the page", c.name)
		}
	}
}

// TestServerZoneCookie: a dashboard page pre-rendered in the server's own
// zone, for a request that named no zone the server knows, sets
// view.ServerZoneCookie to the server zone's offset now (boot.js then asks
// once more in the browser's zone when its offset differs); a page in a
// known zone, one in UTC (tz=utc) and a server that pre-renders no numbers
// set none.
func TestServerZoneCookie(t *testing.T) {
	_, off := time.Now().Zone()
	for _, c := range []struct {
		name, cookie, query string
		preRender           bool
		want                string // the cookie's value; "" for none
	}{
		{"first visit", "", "", true, strconv.Itoa(off)},
		{"not a zone", "Mars/Olympus_Mons", "", true, strconv.Itoa(off)},
		{"browser's zone", "Asia/Kolkata", "", true, ""},
		{"page in UTC", "", "tz=utc", true, ""},
		{"no pre-render", "", "", false, ""},
	} {
		r := httptest.NewRequest(http.MethodGet, "/?"+c.query, nil)
		if c.cookie != "" {
			r.AddCookie(&http.Cookie{Name: view.ZoneCookie, Value: c.cookie})
		}
		w := httptest.NewRecorder()
		withBrowserZone(w, r, c.preRender)
		var got *http.Cookie
		for _, k := range w.Result().Cookies() {
			if k.Name == view.ServerZoneCookie {
				got = k
			}
		}
		switch {
		case c.want == "" && got != nil:
			t.Errorf("%s: cookie %v, want none", c.name, got)
		case c.want != "" && (got == nil || got.Value != c.want || got.Path != "/" || got.MaxAge != 60 || got.SameSite != http.SameSiteLaxMode):
			t.Errorf("%s: cookie %v, want %s=%s for / for 60 s, SameSite=Lax", c.name, got, view.ServerZoneCookie, c.want)
		}
	}
	// Wired to the server's pre-render setting.
	for _, c := range []struct {
		preRender time.Duration
		want      bool
	}{{0, true}, {-1, false}} {
		s := newServer(t, Config{PrometheusURL: "http://127.0.0.1:1", PreRenderTimeout: c.preRender})
		resp, err := http.Get(s.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		set := false
		for _, k := range resp.Cookies() {
			set = set || k.Name == view.ServerZoneCookie
		}
		if set != c.want {
			t.Errorf("PreRenderTimeout %v: %s set %v, want %v", c.preRender, view.ServerZoneCookie, set, c.want)
		}
	}
}

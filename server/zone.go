package server

import (
	"net/http"

	// The browser's zone is looked up by name (view.BrowserZone) on hosts
	// without a zoneinfo database too.
	_ "time/tzdata"

	"specdash/view"
)

// withBrowserZone hands the dashboard's pre-render the browser's time zone:
// web/static/boot.js keeps it in the view.ZoneCookie cookie, and a
// request that carries a known zone goes to go-app with it as the URL's
// fragment (view.ZoneFragment; browsers never send one, and go-app gives
// the pre-render only the URL), so that the pre-rendered page shows
// "local" times as the browser's live page will, not in the server's
// zone. The answer then varies with the cookie.
func withBrowserZone(w http.ResponseWriter, r *http.Request) *http.Request {
	w.Header().Add("Vary", "Cookie")
	c, err := r.Cookie(view.ZoneCookie)
	if err != nil {
		return r
	}
	if _, ok := view.BrowserZone(c.Value); !ok {
		return r
	}
	r2 := r.Clone(r.Context())
	r2.URL.Fragment, r2.URL.RawFragment = view.ZoneFragment+c.Value, ""
	return r2
}

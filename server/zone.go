package server

import (
	"net/http"
	"strconv"
	"time"

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
//
// A request without a known zone (a first visit) is pre-rendered in the
// server's zone: when that page has numbers and "local" times (preRender,
// not tz=utc), the answer sets view.ServerZoneCookie to the server zone's
// offset now, from which boot.js tells whether to ask again in its own
// zone (TestServerZoneCookie, e2e TestPreviewInBrowserZone).
func withBrowserZone(w http.ResponseWriter, r *http.Request, preRender bool) *http.Request {
	w.Header().Add("Vary", "Cookie")
	c, err := r.Cookie(view.ZoneCookie)
	known := err == nil
	if known {
		_, known = view.BrowserZone(c.Value)
	}
	if !known {
		if preRender && r.URL.Query().Get("tz") != view.TZUTC {
			_, off := time.Now().Zone()
			http.SetCookie(w, &http.Cookie{Name: view.ServerZoneCookie, Value: strconv.Itoa(off), Path: "/",
				MaxAge: 60, SameSite: http.SameSiteLaxMode})
		}
		return r
	}
	r2 := r.Clone(r.Context())
	r2.URL.Fragment, r2.URL.RawFragment = view.ZoneFragment+c.Value, ""
	return r2
}

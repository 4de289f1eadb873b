package app

import (
	"specdash/view"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// pushQuery switches to q as a new history entry, so that the browser's
// Back returns to the current view (as a zoom in Grafana does): go-app's
// navigation pushes the URL (history.pushState) and runs OnNav, which
// loads q; Back (popstate) navigates to the previous URL and OnNav loads
// that one again. Other changes replace the URL (apply). On any failure
// q is applied in place.
func (d *Dashboard) pushQuery(ctx app.Context, q view.Query) {
	ok := func() (ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		cur := ctx.Page().URL()
		q.Warn = ""
		u := view.PageURL(cur, q)
		if u.String() == cur.String() {
			return false
		}
		ctx.NavigateTo(u)
		return true
	}()
	if !ok {
		d.apply(ctx, q, true, false)
	}
}

package app

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/chartopt"
	"specdash/view"
)

// Local storage keys of the remembered choices (URL parameters win).
const (
	storeTheme   = "specdash.theme"
	storeRefresh = "specdash.refresh"
)

// layoutState is the dashboard's view state beyond Query: the split
// group, kiosk mode, the cost of the speedup card, the phone's view menu.
type layoutState struct {
	view.Layout // the URL's layout parameters
	viewOpen    bool
	stopKiosk   func()
	// themeAuto: the server's pre-render of a URL without theme=: the
	// root takes the theme of the page (specdash.css: the OS setting,
	// prefers-color-scheme, or the remembered choice boot.js puts on
	// <html data-theme>) instead of forcing light; the browser decides
	// (withPrefs) and renders an explicit theme.
	themeAuto bool
}

// readLayout reads the layout parameters of u (server and browser).
func (d *Dashboard) readLayout(u *url.URL) {
	if u == nil {
		return
	}
	d.lay.Layout = view.ParseLayout(u.Query())
	d.lay.themeAuto = !app.IsClient && !u.Query().Has("theme")
}

// grouping is the group-by shown (checkboxes, table): view.ShownGrouping.
func (d *Dashboard) grouping() []string { return view.ShownGrouping(d.res, d.q) }

// renderSplit is the selector above the split charts ("group: <name>")
// and the caption saying what they show: one group, or "all N models
// blended". Hooks: select#split, [data-split] with data-split-group (the
// shown group's name, "" when blended) and data-blended.
func (d *Dashboard) renderSplit() app.UI {
	if !d.res.Splits() {
		return app.Div().Class("split").DataSet("split", "none")
	}
	g := d.res.SplitGroup(d.lay.Split)
	cur, name := view.SplitAll, ""
	if g != nil {
		cur, name = view.EncodeOption(g.Key), g.Name
	}
	opts := []selectOpt{{value: view.SplitAll, label: "all " + strconv.Itoa(len(d.res.Groups)) + " " + d.res.GroupNoun() + " blended"}}
	for _, gr := range view.SortGroups(d.res.Groups, "") {
		opts = append(opts, selectOpt{value: view.EncodeOption(gr.Key), label: gr.Name})
	}
	return app.Div().Class("split").DataSet("split", "groups").DataSet("split-group", name).DataSet("blended", g == nil).Body(
		selectBoxTip("split", "group", "The per-position, heatmap, token flow and speedup panels show one group, or the blend of all", cur, opts, d.onSplit),
		app.Span().Class("split-caption").Text(d.res.SplitCaption(d.lay.Split)),
	)
}

func (d *Dashboard) onSplit(ctx app.Context, e app.Event) {
	v := ctx.JSSrc().Get("value").String()
	d.lay.Split = view.SplitAll
	if key, ok := view.DecodeOptionOK(v); ok {
		d.lay.Split = key
	}
	d.writeLayoutURL(ctx)
}

// writeLayoutURL puts the split choice into the URL (kept by MergeValues).
func (d *Dashboard) writeLayoutURL(ctx app.Context) {
	defer func() { recover() }() // history.replaceState is JS: never let it kill the app
	u := *ctx.Page().URL()
	q := u.Query()
	switch d.lay.Split {
	case "":
		q.Del(view.SplitParam)
	case view.SplitAll:
		q.Set(view.SplitParam, view.SplitAll)
	default:
		q.Set(view.SplitParam, view.EncodeOption(d.lay.Split))
	}
	u.RawQuery = q.Encode()
	ctx.Page().ReplaceURL(&u)
}

// viewControls puts the controls behind one "View" button on a phone
// (CSS shows them when open or on a wide screen; kiosk hides them).
func (d *Dashboard) viewControls(body ...app.UI) app.UI {
	label := "View ▾"
	if d.lay.viewOpen {
		label = "View ▴"
	}
	cls := []string{"view-panel"}
	if d.lay.viewOpen {
		cls = append(cls, "open")
	}
	return app.Div().Class("view-controls").Body(
		app.Button().ID("view-toggle").Class("btn", "view-toggle").Type("button").
			Aria("expanded", d.lay.viewOpen).Aria("controls", "view-panel").
			Title("Show or hide the time range, refresh, filters and grouping").
			Text(label).OnClick(func(ctx app.Context, e app.Event) { d.lay.viewOpen = !d.lay.viewOpen }),
		app.Div().ID("view-panel").Class(cls...).Body(body...),
	)
}

// withPrefs fills q's theme and refresh from the remembered choices
// (local storage) or, for the theme, the OS setting (prefers-color-scheme)
// when the URL does not give them (browser only).
func (d *Dashboard) withPrefs(ctx app.Context, u *url.URL, q view.Query) view.Query {
	if !app.IsClient || u == nil {
		return q
	}
	v := u.Query()
	if !v.Has("theme") {
		var t string
		if err := ctx.LocalStorage().Get(storeTheme, &t); err == nil && (t == view.ThemeDark || t == view.ThemeLight) {
			q.Theme = t
		} else if prefersDark() {
			q.Theme = view.ThemeDark
		}
	}
	if !v.Has("refresh") {
		var r string
		if err := ctx.LocalStorage().Get(storeRefresh, &r); err == nil && slices.Contains(view.Refreshes, r) {
			q.Refresh = r
		}
	}
	return q
}

func prefersDark() (dark bool) {
	defer func() {
		if recover() != nil {
			dark = false
		}
	}()
	mm := app.Window().Get("matchMedia")
	if !mm.Truthy() {
		return false
	}
	return app.Window().Call("matchMedia", "(prefers-color-scheme: dark)").Get("matches").Bool()
}

// setPageTheme puts a chosen theme on <html data-theme> (as boot.js does
// at the first paint), so the page around the dashboard follows it.
func setPageTheme(theme string) {
	if !app.IsClient {
		return
	}
	defer func() { recover() }()
	app.Window().Get("document").Get("documentElement").Call("setAttribute", "data-theme", theme)
}

// remember keeps a choice of theme or refresh period for the next visit.
func remember(ctx app.Context, key, value string) {
	if !app.IsClient {
		return
	}
	defer func() { recover() }()
	_ = ctx.LocalStorage().Set(key, value)
}

// layoutNav runs after each navigation in the browser: the layout
// parameters, and kiosk mode's rotation through the groups.
func (d *Dashboard) layoutNav(ctx app.Context) {
	d.readLayout(ctx.Page().URL())
	if d.lay.stopKiosk != nil {
		d.lay.stopKiosk()
		d.lay.stopKiosk = nil
	}
	if !d.lay.Kiosk || d.ctx == nil {
		return
	}
	rctx := d.ctx
	d.lay.stopKiosk = every(d.lay.Period, func() {
		ctx.Dispatch(func(ctx app.Context) {
			if rctx.Err() == nil {
				d.lay.Split = d.res.NextSplit(d.lay.Split)
			}
		})
	})
}

// stopLayout stops kiosk mode's rotation.
func (d *Dashboard) stopLayout() {
	if d.lay.stopKiosk != nil {
		d.lay.stopKiosk()
		d.lay.stopKiosk = nil
	}
}

// themeName is the root's theme (class theme-<name>, data-theme):
// ThemeLight, ThemeDark, or "auto" (themeAuto).
func (d *Dashboard) themeName(pal chartopt.Palette) string {
	if d.lay.themeAuto {
		return "auto"
	}
	return pal.Name
}

// layoutClass is the root's class for kiosk mode ("" otherwise).
func (d *Dashboard) layoutClass() string {
	if d.lay.Kiosk {
		return "kiosk"
	}
	return "normal"
}

// handlerKey is the field an event handler acts on, read from the event's
// element (attribute attr) instead of trusting the closure: go-app
// (v10.1.11, eventHandler.Equal) compares handlers by code pointer, so
// when the controls shift (the Live button appears once the URL's
// absolute window is read) an element keeps the closure of the element
// that was there before, and the refresh select acted as the time zone.
// fallback when the element has no such attribute.
func handlerKey(ctx app.Context, attr, fallback string) (key string) {
	defer func() {
		if recover() != nil {
			key = fallback
		}
	}()
	if !app.IsClient {
		return fallback
	}
	v := ctx.JSSrc().Call("getAttribute", attr)
	if v.Truthy() {
		if s := v.String(); s != "" {
			return s
		}
	}
	return fallback
}

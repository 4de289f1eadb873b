package app

import (
	"context"
	"slices"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/metricsclient"
	"specdash/model"
	"specdash/view"
)

// The filter menus, in the style Grafana's variables have: per label a
// <details> popover (native: Enter/Space opens it, Tab walks it) with a
// search input and one checkbox per value; the chosen values as chips
// (each with a remove button named "Remove filter <label> = <value>", by
// hidden text: label values are never attribute values);
// chained values (a label's menu lists the values of the series that the
// other filters keep: the engine menu lists the chosen model's engines);
// and the active filters, window and source in a summary line in the page
// ([data-filter-summary]), so that a screenshot or a PNG of the page says
// what it shows. A value in the URL that the label list lacks is still a
// chip and a checked box. The URL format is Query's (model=, engine=,
// f.<label>=, repeatable).
//
// Hooks: [data-filter=<label>] per label; its checkboxes are
// input[data-filter-value] (value: encodeOption of the label value) in
// #<view.FilterID> (role group), in the live page only while the menu is
// open (filterState.open; the pre-rendered page lists them all); chips
// [data-chip=<label>][data-value=...]; search input
// #<view.FilterID>-search; popover #<view.FilterID>-menu.

// filterState is the filter menus' view state (browser only).
type filterState struct {
	search   map[string]string   // label -> text typed in its menu's search
	open     map[string]bool     // label -> its menu is open (its options rendered)
	names    []string            // the labels of the menus last rendered
	chained  map[string][]string // label -> its values under the other filters
	chainKey string              // what chained is for (view.ChainKeyOf), "" when none
	chainAt  time.Time           // when chained was read
	busy     string              // the view.ChainKeyOf being read

	// ui is the Dashboard's own context (OnMount): the handlers apply a
	// new filter with it, not with the clicked element's, because go-app
	// drops what an element's context dispatches once that element is
	// gone, and a chip or an option disappears with the value it removed
	// (the load's result would never be shown).
	ui    app.Context
	hasUI bool

	// stopMenus removes the document listeners of listenMenus.
	stopMenus func()
}

// listenMenus closes the filter menus as Grafana's do: a click outside
// an open menu closes it, and Escape (wherever the focus is) closes the
// open menus and puts the focus back on the toggle (<summary>) of the one
// it was in, or of the first. Document listeners (capture), removed with
// the dashboard (stopMenus). Browser only.
func (d *Dashboard) listenMenus() {
	if !app.IsClient || d.flt.stopMenus != nil {
		return
	}
	defer func() { recover() }() // JS: never let it kill the app
	doc := app.Window().Get("document")
	openMenus := func() []app.Value {
		list := doc.Call("querySelectorAll", "details.filter-menu[open]")
		out := make([]app.Value, list.Length())
		for i := range out {
			out[i] = list.Index(i)
		}
		return out
	}
	click := app.FuncOf(func(_ app.Value, args []app.Value) any {
		defer func() { recover() }()
		if len(args) == 0 {
			return nil
		}
		target := args[0].Get("target")
		for _, m := range openMenus() {
			if !m.Call("contains", target).Bool() {
				m.Set("open", false)
			}
		}
		return nil
	})
	key := app.FuncOf(func(_ app.Value, args []app.Value) any {
		defer func() { recover() }()
		if len(args) == 0 || args[0].Get("key").String() != "Escape" {
			return nil
		}
		menus := openMenus()
		if len(menus) == 0 {
			return nil
		}
		focus := menus[0]
		active := doc.Get("activeElement")
		for _, m := range menus {
			if active.Truthy() && m.Call("contains", active).Bool() {
				focus = m
			}
			m.Set("open", false)
		}
		focus.Call("querySelector", "summary").Call("focus")
		return nil
	})
	doc.Call("addEventListener", "click", click, true)
	doc.Call("addEventListener", "keydown", key, true)
	d.flt.stopMenus = func() {
		defer func() { recover() }()
		doc.Call("removeEventListener", "click", click, true)
		doc.Call("removeEventListener", "keydown", key, true)
		click.Release()
		key.Release()
	}
}

// chainedOf is label's values under the other filters, when they were
// read for q's filters, source and window.
func (f *filterState) chainedOf(label string, q view.Query) ([]string, bool) {
	vals, ok := f.chained[label]
	return vals, ok && f.chainKey != "" && f.chainKey == view.ChainKeyOf(q)
}

// uiCtx is the context to load with: the Dashboard's when mounted.
func (d *Dashboard) uiCtx(ctx app.Context) app.Context {
	if d.flt.hasUI {
		return d.flt.ui
	}
	return ctx
}

// renderFilterSummary is the summary line (in the page, above the
// numbers: part of screenshots and PNG exports of the page).
func (d *Dashboard) renderFilterSummary() app.UI {
	source := d.q.Source
	if source == "" || view.UnknownSource(Sources(), source) {
		source = d.source // the default the page reads instead
	}
	return app.P().Class("filter-summary").DataSet("filter-summary", "true").
		Aria("live", "polite").Text(view.FilterSummary(d.q, source, d.q.Location()))
}

// renderFilterMenu is one label's chips and menu.
func (d *Dashboard) renderFilterMenu(l string) app.UI {
	id := view.FilterID(l)
	chosen := d.q.Filter[l]
	_, chained := d.flt.chainedOf(l, d.q)
	search := d.flt.search[l]
	vals := d.menuValues(l)
	// The live page renders a menu's options only while it is open: at
	// fleet scale a closed instance menu would otherwise be hundreds of
	// elements that go-app creates and diffs on every render (a third of
	// the page at 1,024 engines). The pre-rendered page lists them all:
	// preview.js works on them before the wasm runs.
	shown := !app.IsClient || d.flt.open[l]
	var listed []string
	if shown {
		listed = vals
	}
	summary, tip := view.MenuTexts(l, chosen, chained)
	menu := app.Div().Class("control", "control-filter").DataSet("filter", l)
	if !app.IsClient && d.page != nil {
		// The pre-rendered menu works before the wasm runs (preview.js).
		if href, param := view.FilterHref(d.page, d.q, l); href != "" {
			menu = menu.DataSet("filter-href", href).DataSet("filter-param", param)
		}
	}
	return menu.Body(
		app.Span().Class("control-label", "label-name").ID(id+"-label").Text(l),
		app.Div().Class("chips").Body(
			app.Range(chosen).Slice(func(i int) app.UI {
				v := chosen[i]
				return app.Span().Class("chip").DataSet("chip", l).DataSet("value", view.EncodeOption(v)).Body(
					app.Span().Class("chip-text").Text(model.LabelText(v)),
					// The accessible name is text, not aria-label: a label
					// value never goes into an attribute (go-app writes
					// pre-rendered attributes unescaped).
					app.Button().Type("button").Class("chip-remove").
						OnClick(d.onChipRemove).Body(
						app.Span().Aria("hidden", "true").Text("×"),
						app.Span().Class("visually-hidden").Text("Remove filter "+l+" = "+model.LabelText(v)),
					),
				)
			}),
		),
		app.Details().ID(id+"-menu").Class("filter-menu").Title(tip).OnToggle(d.onFilterToggle).Body(
			app.Summary().Class("filter-toggle").Body(
				app.Span().Class("visually-hidden").Text(l+" values: "),
				app.Text(summary),
			),
			app.Div().Class("filter-pop").Body(
				app.Input().Type("search").ID(id+"-search").Class("filter-search").
					Placeholder("Search "+l).Aria("label", "Search values of "+l).
					AutoComplete(false).Value(search).
					OnInput(d.onFilterSearch).OnKeyDown(d.onFilterKey),
				app.Div().ID(id).Class("filter-options").Role("group").Aria("labelledby", id+"-label").Body(
					app.Range(listed).Slice(func(i int) app.UI {
						v := listed[i]
						on := slices.Contains(chosen, v)
						return app.Label().Class("check", "filter-option").Body(
							app.Input().Type("checkbox").DataSet("filter-value", view.EncodeOption(v)).
								Value(view.EncodeOption(v)).Checked(on).OnChange(d.onFilterCheck),
							app.Span().Text(model.LabelText(v)),
						)
					}),
				),
				app.If(len(vals) == 0 && shown, func() app.UI {
					return app.Div().Class("filter-none").Text("No value matches")
				}),
				app.If(len(chosen) > 0, func() app.UI {
					return app.Button().Type("button").Class("tool", "filter-clear").
						Aria("label", "Clear the "+l+" filter").OnClick(d.onFilterClear).Text("Clear")
				}),
			),
		),
	)
}

// The handlers read the label and value from the element at event time
// (data-filter of the enclosing menu, the checkbox's value, the chip's
// data-value), never from variables captured at render: go-app keeps an
// element's first handler when a re-render gives it another closure of
// the same function, so a captured value can be that of a value listed
// there before.

// eventLabel is the label of the menu holding the event's element.
func eventLabel(ctx app.Context) (label string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	f := ctx.JSSrc().Call("closest", "[data-filter]")
	if !f.Truthy() {
		return "", false
	}
	label = f.Get("dataset").Get("filter").String()
	return label, metricsclient.ValidateLabelName(label) == nil
}

// setFilterValue adds (on) or removes value v of label's filter and loads.
func (d *Dashboard) setFilterValue(ctx app.Context, label, v string, on bool) {
	vals := slices.DeleteFunc(slices.Clone(d.q.Filter[label]), func(x string) bool { return x == v })
	if on {
		vals = append(vals, v)
	}
	q := d.q
	q.SetFilter(label, vals)
	d.apply(d.uiCtx(ctx), q, true, false)
}

// onFilterCheck handles a value's checkbox.
func (d *Dashboard) onFilterCheck(ctx app.Context, e app.Event) {
	label, ok := eventLabel(ctx)
	if !ok {
		return
	}
	v, ok := view.DecodeOptionOK(ctx.JSSrc().Get("value").String())
	if !ok {
		return
	}
	d.setFilterValue(ctx, label, v, ctx.JSSrc().Get("checked").Bool())
}

// onChipRemove handles a chip's remove button.
func (d *Dashboard) onChipRemove(ctx app.Context, e app.Event) {
	label, ok := eventLabel(ctx)
	if !ok {
		return
	}
	chip := ctx.JSSrc().Call("closest", "[data-chip]")
	if !chip.Truthy() {
		return
	}
	if v, ok := view.DecodeOptionOK(chip.Get("dataset").Get("value").String()); ok {
		focusAfterChip(chip)
		d.setFilterValue(ctx, label, v, false)
	}
}

// focusAfterChip keeps the keyboard's focus in the filter when a chip's
// remove button goes with its chip, as the chips of GOV.UK's and
// Material's filters do, instead of letting it fall to the page's start:
// on the next chip's button (go-app reuses the chips' elements by
// position, so that is this button, showing the next value: nothing to
// move), else the previous chip's, else the menu's toggle.
func focusAfterChip(chip app.Value) {
	defer func() { _ = recover() }()
	if chip.Get("nextElementSibling").Truthy() {
		return
	}
	if prev := chip.Get("previousElementSibling"); prev.Truthy() {
		if b := prev.Call("querySelector", ".chip-remove"); b.Truthy() {
			b.Call("focus")
			return
		}
	}
	focusInFilter(chip, "summary")
}

// focusInFilter focuses the first element matching sel in the filter
// control (data-filter) that holds el, if there is one.
func focusInFilter(el app.Value, sel string) {
	defer func() { _ = recover() }()
	if menu := el.Call("closest", "[data-filter]"); menu.Truthy() {
		if t := menu.Call("querySelector", sel); t.Truthy() {
			t.Call("focus")
		}
	}
}

// onFilterClear removes the menu's filter.
func (d *Dashboard) onFilterClear(ctx app.Context, e app.Event) {
	label, ok := eventLabel(ctx)
	if !ok {
		return
	}
	// The button goes with the filter: the focus goes to the menu's
	// search box, still open, not to the page's start.
	focusInFilter(ctx.JSSrc(), "input[type=search]")
	q := d.q
	q.SetFilter(label, nil)
	d.apply(d.uiCtx(ctx), q, true, false)
}

// closeShiftedMenus closes the open filter menus when the list of labels
// changes (a filter on a label no series has removed, labels read again):
// go-app reuses the menus' elements by position, so an open element would
// go on showing, open, the menu of another label, whose options are not
// rendered. The elements are closed in the page (their toggle events then
// record it); their open state is not rendered as an attribute, which
// go-app would set back from a render older than the user's last click.
func (d *Dashboard) closeShiftedMenus(names []string) {
	if slices.Equal(names, d.flt.names) {
		return
	}
	d.flt.names = slices.Clone(names)
	if len(d.flt.open) == 0 || !app.IsClient {
		return
	}
	clear(d.flt.open)
	defer func() { recover() }()
	list := app.Window().Get("document").Call("querySelectorAll", "details.filter-menu[open]")
	for i := range list.Length() {
		list.Index(i).Set("open", false)
	}
}

// onFilterToggle keeps whether a menu is open: its options are rendered
// while it is (renderFilterMenu). The toggle event comes however the menu
// opened or closed: a click or Enter on its toggle, a click outside or
// Escape (listenMenus, onFilterKey), preview.js's hand-over.
func (d *Dashboard) onFilterToggle(ctx app.Context, e app.Event) {
	label, ok := eventLabel(ctx)
	if !ok {
		return
	}
	if d.flt.open == nil {
		d.flt.open = map[string]bool{}
	}
	open := ctx.JSSrc().Get("open").Bool()
	d.flt.open[label] = open
	if open {
		// The search box shows this label's text: its element may have
		// been another label's menu (go-app reuses them by position) with
		// text typed there that no render replaced.
		func() {
			defer func() { recover() }()
			if in := ctx.JSSrc().Call("querySelector", "input.filter-search"); in.Truthy() && in.Get("value").String() != d.flt.search[label] {
				in.Set("value", d.flt.search[label])
			}
		}()
	}
}

// onFilterSearch keeps the text typed in a menu's search input.
func (d *Dashboard) onFilterSearch(ctx app.Context, e app.Event) {
	label, ok := eventLabel(ctx)
	if !ok {
		return
	}
	if d.flt.search == nil {
		d.flt.search = map[string]string{}
	}
	d.flt.search[label] = ctx.JSSrc().Get("value").String()
}

// menuValues are the values label's menu lists now.
func (d *Dashboard) menuValues(label string) []string {
	chained, ok := d.flt.chainedOf(label, d.q)
	return view.MenuValues(d.labelValues(label), chained, ok, d.q.Filter[label], d.flt.search[label])
}

// onFilterKey: Enter in the search input toggles the first listed value,
// Escape clears the search and closes the menu (and puts the focus back
// on its toggle).
func (d *Dashboard) onFilterKey(ctx app.Context, e app.Event) {
	label, ok := eventLabel(ctx)
	if !ok {
		return
	}
	switch e.Get("key").String() {
	case "Enter":
		e.PreventDefault()
		if vals := d.menuValues(label); len(vals) > 0 {
			d.setFilterValue(ctx, label, vals[0], !slices.Contains(d.q.Filter[label], vals[0]))
		}
	case "Escape":
		// The search is cleared, as Chrome may clear a search box on Escape
		// (without an input event) and Grafana's menus clear theirs on close:
		// reopened, the menu lists every value.
		delete(d.flt.search, label)
		func() {
			defer func() { recover() }()
			ctx.JSSrc().Set("value", "")
			menu := ctx.JSSrc().Call("closest", "details")
			menu.Set("open", false)
			menu.Call("querySelector", "summary").Call("focus")
		}()
	}
}

// chainLabels reads, in the background, the values each label's menu
// lists under the other filters (ChainFilters: one SeriesLabels per
// distinct filter set, match[] = the schema's selector with those
// filters), after a load with filters; the menus show them once read.
func (d *Dashboard) chainLabels(ctx app.Context) {
	key := view.ChainKeyOf(d.q)
	fresh := key == d.flt.chainKey && time.Since(d.flt.chainAt) < view.LabelsMaxAge
	if key == "" || fresh || key == d.flt.busy || d.client == nil || d.ctx == nil ||
		d.res == nil || d.res.Schema == nil {
		return
	}
	d.flt.busy = key
	client := d.client.WithSchema(d.res.Schema.Schema)
	// The shown window's grid: a shaped load (a fleet, or a first load
	// that deferred its Window) has no Window.
	q, g, names := d.q, d.res.Grid, view.LabelNames(d.labels, d.q)
	sets := view.ChainSets(q, names)
	lctx, cancel := context.WithTimeout(d.ctx, loadTimeout)
	ctx.Async(func() {
		defer cancel()
		out := map[string][]string{}
		var failed error
		for _, labels := range sets {
			vals, err := client.SeriesLabels(lctx, view.ChainFilters(q, labels[0]), time.UnixMilli(g.Start), time.UnixMilli(g.End))
			if err != nil {
				failed = err
				break
			}
			for _, l := range labels {
				out[l] = vals[l]
				if out[l] == nil {
					out[l] = []string{}
				}
			}
		}
		ctx.Dispatch(func(ctx app.Context) {
			if d.flt.busy == key {
				d.flt.busy = ""
			}
			if failed != nil || key != view.ChainKeyOf(d.q) {
				return // the menus keep the unchained lists
			}
			d.flt.chained, d.flt.chainKey, d.flt.chainAt = out, key, time.Now()
		})
	})
}

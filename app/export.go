package app

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// download hands content to the browser as a file: a Blob URL on a
// temporary <a download>. Browser only; JS errors are returned.
func download(name, mime, content string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = jsError(r)
		}
	}()
	w := app.Window()
	blob := w.Get("Blob").New([]any{content}, map[string]any{"type": mime})
	url := w.Get("URL").Call("createObjectURL", blob)
	clickLink(url.String(), name)
	w.Get("URL").Call("revokeObjectURL", url)
	return nil
}

func clickLink(href, name string) {
	doc := app.Window().Get("document")
	a := doc.Call("createElement", "a")
	a.Set("href", href)
	a.Set("download", name)
	a.Get("style").Set("display", "none")
	doc.Get("body").Call("appendChild", a)
	a.Call("click")
	a.Call("remove")
}

// downloadPNG saves the chart [data-chart=name] as a PNG (ECharts at
// twice the resolution, on the panel colour, without the toolbox) under
// title, lines of text in colour fg (PNGTitle: what the chart shows),
// drawn by specdashCharts.exportPNG (web/static/charts.js); without that
// script, the chart alone (getDataURL).
func downloadPNG(chart, file, background, fg string, title []string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = jsError(r)
		}
	}()
	w := app.Window()
	el := w.Get("document").Call("querySelector", `[data-chart="`+chart+`"]`)
	if !el.Truthy() || !w.Get("echarts").Truthy() {
		return errString("chart " + chart + " is not drawn")
	}
	inst := w.Get("echarts").Call("getInstanceByDom", el)
	if !inst.Truthy() {
		return errString("chart " + chart + " is not drawn")
	}
	var url app.Value
	if sc := w.Get("specdashCharts"); sc.Truthy() && sc.Get("exportPNG").Truthy() {
		lines := make([]any, len(title))
		for i, l := range title {
			lines[i] = l
		}
		url = sc.Call("exportPNG", inst, background, fg, lines)
	} else {
		url = inst.Call("getDataURL", map[string]any{"type": "png", "pixelRatio": 2, "backgroundColor": background,
			"excludeComponents": []any{"toolbox"}})
	}
	clickLink(url.String(), file)
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

func jsError(r any) error {
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(toString(r), "JavaScript error:"), "js error:"))
	return errString("export failed: " + s)
}

func toString(r any) string {
	switch x := r.(type) {
	case error:
		return x.Error()
	case string:
		return x
	}
	return "unknown error"
}

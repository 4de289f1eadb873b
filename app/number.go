package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
	"specdash/view"
)

// numberElem is a go-app element that can show a number.
type numberElem[T any] interface {
	DataSet(string, any) T
	Class(...string) T
	Body(...app.UI) T
	Text(any) T
}

// number is el showing v as text, with the test hooks of a number:
// data-value (a plain decimal) when v is defined, else
// data-undefined="true" and the class undefined. With unit, a defined
// number's unit ("2.80 tokens/draft") is set smaller than the number and
// may wrap below it.
func number[T numberElem[T]](el T, v compute.Value, text string, unit bool) T {
	if !v.OK {
		return el.DataSet("undefined", "true").Class("undefined").Text(text)
	}
	el = el.DataSet("value", view.Plain(v.V))
	if num, u, ok := view.SplitUnit(text); ok && unit {
		return el.Body(app.Span().Class("num").Text(num), app.Text(" "), app.Span().Class("unit").Text(u))
	}
	return el.Text(text)
}

package app

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// LogsPage is the /logs page.
type LogsPage struct {
	app.Compo
}

// Render draws the page.
func (l *LogsPage) Render() app.UI {
	return app.Div().Class("logs").DataSet("logs", "specdash")
}

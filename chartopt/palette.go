package chartopt

// SeriesColors is how many series the time charts tell apart by colour:
// the palettes' Series hold this many distinct colours, and a chart with
// more lines repeats them (PaletteNote says so).
const SeriesColors = 20

// The series colours: 20 per theme, the first eleven as before (blue,
// teal, amber, pink, violet, green, red, cyan, lime, orange, slate; the
// twelfth, purple, was too close to violet), then nine more chosen
// (Tailwind shades) to keep every pair apart: no two closer than
// MinColorDistance in CIELAB (ΔE*76; tested). Light: no lighter than
// L* 62 on white; dark: no darker than L* 60 on #111827.
var (
	lightSeries = []string{
		"#2563eb", "#0d9488", "#d97706", "#db2777", "#7c3aed", "#059669", "#dc2626", "#0891b2", "#65a30d", "#ea580c",
		"#475569", "#78350f", "#86198f", "#3f6212", "#1e3a8a", "#d946ef", "#9f1239", "#818cf8", "#16a34a", "#0369a1",
	}
	darkSeries = []string{
		"#60a5fa", "#2dd4bf", "#fbbf24", "#f472b6", "#a78bfa", "#34d399", "#f87171", "#22d3ee", "#a3e635", "#fb923c",
		"#94a3b8", "#fda4af", "#e879f9", "#65a30d", "#f0abfc", "#22c55e", "#fdba74", "#d6d3d1", "#38bdf8", "#ca8a04",
	}
)

// MinColorDistance is the least CIELAB distance (ΔE*76) between two
// series colours of one palette (palette_test.go).
const MinColorDistance = 15

// PaletteNote is what the page says under a time chart of n groups: ""
// up to SeriesColors, else that their colours would repeat (the page
// draws the SeriesColors busiest, app.MaxLines) and advice to group by
// fewer labels or filter.
func PaletteNote(n int) string {
	if n <= SeriesColors {
		return ""
	}
	return "More than 20 groups would repeat colours. Group by fewer labels or filter to see the others."
}

package chartopt

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// lab is the CIELAB colour (D65) of a "#rrggbb" colour.
func lab(t *testing.T, hex string) [3]float64 {
	t.Helper()
	if len(hex) != 7 || hex[0] != '#' {
		t.Fatalf("colour %q is not #rrggbb", hex)
	}
	var rgb [3]float64
	for i := range rgb {
		v, err := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		if err != nil {
			t.Fatalf("colour %q: %v", hex, err)
		}
		c := float64(v) / 255
		if c > 0.04045 {
			c = math.Pow((c+0.055)/1.055, 2.4)
		} else {
			c /= 12.92
		}
		rgb[i] = c
	}
	x := (rgb[0]*0.4124 + rgb[1]*0.3576 + rgb[2]*0.1805) / 0.95047
	y := rgb[0]*0.2126 + rgb[1]*0.7152 + rgb[2]*0.0722
	z := (rgb[0]*0.0193 + rgb[1]*0.1192 + rgb[2]*0.9505) / 1.08883
	f := func(v float64) float64 {
		if v > 0.008856 {
			return math.Cbrt(v)
		}
		return 7.787*v + 16.0/116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

// TestPaletteDistinct: each theme has SeriesColors series colours, no
// two of them closer than MinColorDistance (ΔE*76), none repeated, and
// each far enough from the chart's background to be seen.
func TestPaletteDistinct(t *testing.T) {
	for _, theme := range []string{ThemeLight, ThemeDark} {
		p := PaletteFor(theme)
		if len(p.Series) != SeriesColors {
			t.Fatalf("%s: %d series colours, want %d", theme, len(p.Series), SeriesColors)
		}
		bg := "#ffffff"
		if theme == ThemeDark {
			bg = "#111827"
		}
		b := lab(t, bg)
		for i, a := range p.Series {
			la := lab(t, a)
			if d := dist(la, b); d < 30 {
				t.Errorf("%s: colour %d %s is %.1f from the background %s, want >= 30", theme, i, a, d, bg)
			}
			for j := i + 1; j < len(p.Series); j++ {
				if d := dist(la, lab(t, p.Series[j])); d < MinColorDistance {
					t.Errorf("%s: colours %d %s and %d %s are %.1f apart, want >= %d", theme, i, a, j, p.Series[j], d, MinColorDistance)
				}
			}
		}
	}
}

func dist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// TestPaletteNote: no note up to 20 lines; past 20, one that says the
// colours repeat and advises grouping.
func TestPaletteNote(t *testing.T) {
	for _, n := range []int{0, 1, 20} {
		if got := PaletteNote(n); got != "" {
			t.Errorf("PaletteNote(%d) = %q, want none", n, got)
		}
	}
	got := PaletteNote(21)
	if !strings.Contains(got, "repeat colours") || !strings.Contains(got, "Group by fewer labels") {
		t.Errorf("PaletteNote(21) = %q, want it to say colours would repeat and to group by fewer labels", got)
	}
	// The 21st line takes the first line's colour (the note's reason).
	lines := make([]string, 21)
	for i := range lines {
		lines[i] = PaletteFor(ThemeLight).Series[i%SeriesColors]
	}
	if lines[20] != lines[0] || lines[19] == lines[0] {
		t.Errorf("line colours %v: want 20 distinct, then a repeat", lines)
	}
}

package report

import (
	"fmt"
	"strings"
	"time"

	"specdash/compute"
	"specdash/model"
)

// Change is a change of a group's acceptance rate over the window
// (compute.ChangePoint) with its time. JSON: {"at": RFC 3339, "bucket",
// "before", "after", "difference", "statistic", "p_value", "confidence"}.
type Change struct {
	At time.Time `json:"at"`
	compute.ChangePoint
}

// changesOf places m's change points cps in time (nil for none).
func changesOf(m *model.Model, cps []compute.ChangePoint) []Change {
	var out []Change
	for _, c := range m.ChangesOf(cps) {
		out = append(out, Change{At: time.UnixMilli(c.At).UTC(), ChangePoint: c.ChangePoint})
	}
	return out
}

// writeHealthText writes the health lines of one group or the total:
// "  health: <state> - <summary>", the cause of an alarm, the notes, and a
// line per change of the acceptance rate. Nothing without a verdict.
func writeHealthText(b *strings.Builder, v *compute.Verdict, changes []Change) {
	if v == nil {
		return
	}
	// A summary that starts with the state's own word ("idle: no drafts")
	// does not repeat it ("health: idle - idle: ...").
	summary, _ := strings.CutPrefix(v.Summary, v.State.Label()+": ")
	fmt.Fprintf(b, "  health: %s - %s\n", v.State.Label(), summary)
	if v.State.Alarm() {
		for _, e := range v.Evidence {
			fmt.Fprintf(b, "    evidence: %s\n", e)
		}
		if v.Cause != "" {
			fmt.Fprintf(b, "    usual cause: %s\n", v.Cause)
		}
	}
	for _, n := range v.Notes {
		fmt.Fprintf(b, "    note: %s\n", n)
	}
	for _, c := range changes {
		fmt.Fprintf(b, "  change: %s\n", model.Change{ChangePoint: c.ChangePoint}.Text(c.At.Format(time.RFC3339)))
	}
}

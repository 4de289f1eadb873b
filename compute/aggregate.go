package compute

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxPosition is the largest draft position Aggregate accepts (0-based).
// Real k is below 16; a larger position label is garbage and its series is
// skipped (reported in Group.Skipped) rather than sizing a huge slice.
const MaxPosition = 1024

// Group is a set of series aggregated together: increases summed per counter
// (ratio of sums later, never an average of ratios).
type Group struct {
	// Labels holds the group-by labels only (a missing label is ""); empty
	// when grouping by nothing, nil for Sum's total row.
	Labels map[string]string
	// Key is GroupKey(Labels, groupBy) ("" for Sum's total row).
	Key string
	// Total holds the increases over the whole grid, (Start, End]; it is
	// the sum of Buckets.
	Total Counts
	// Buckets holds the increases per grid bucket (len = Grid.Buckets()).
	// Every Counts in Total and Buckets has AcceptedPerPosition of length
	// k = max position + 1 seen in the group (0 without per-position data).
	Buckets []Counts
	// Series is the number of distinct label sets (without position)
	// contributing to the group, for example one per engine.
	Series int
	// Skipped describes the series that were left out (unknown family,
	// position < 0 or > MaxPosition), one sentence each.
	Skipped []string
}

// labelKey encodes values without ambiguity (length-prefixed).
func labelKey(b *strings.Builder, vals ...string) {
	for _, v := range vals {
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	}
}

// GroupKey identifies the group of a label set under groupBy: the JSON
// array of its values in groupBy order, a missing label counting as ""
// (`[]` without grouping). It is the one group-key encoding: Aggregate's
// groups (Group.Key), the view model's per-group numbers, and the
// dashboard's URLs (compare a/b) and table rows (data-group).
func GroupKey(labels map[string]string, groupBy []string) string {
	vals := make([]string, len(groupBy))
	for i, l := range groupBy {
		vals[i] = labels[l]
	}
	return groupKey(vals)
}

func groupKey(vals []string) string {
	b, _ := json.Marshal(vals)
	return string(b)
}

// identity encodes a full label set, sorted by name.
func identity(labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for n := range labels {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		labelKey(&b, n, labels[n])
	}
	return b.String()
}

// LabelString prints a label set as {a="x", b="y"}: sorted by name, values
// quoted with Go/PromQL escapes (a newline in a model name prints as \n).
// The one label formatter of report, logparse and compute's own messages.
func LabelString(labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for n := range labels {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + strconv.Quote(labels[n])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

type groupAcc struct {
	values []string
	group  Group
	ids    map[string]struct{}
	// perPos[pos] holds the bucket increases of that position.
	perPos [][]float64
	// kOf is the k (largest position + 1) of each source series set
	// (identity), drafts its drafts' bucket increases: the per-position
	// denominators when k is mixed (see finish).
	kOf    map[string]int
	drafts map[string][]float64
}

// Aggregate groups series by the values of the groupBy labels (a missing
// label counts as "") and sums, per group, the exact increases
// (BucketIncreasesSince, with each series' Created as its start time) of
// each counter family per grid bucket and over the whole grid. Sums are
// ratios' numerators and denominators: derive each group with Derive or
// Group.BucketStats (ratio of sums, never an average of ratios).
//
// Groups come sorted by their label values in groupBy order. With an empty
// groupBy every series lands in one group with empty Labels. No series gives
// no groups. Per-position series with a position < 0 or > MaxPosition and
// series of an unknown Family are skipped and described in the group's
// Skipped. An invalid grid (see Grid.Validate) gives groups with no buckets
// and zero totals. Cost O(points + series x buckets).
func Aggregate(series []Series, groupBy []string, g Grid) []Group {
	n := g.Buckets()
	accs := map[string]*groupAcc{}
	var order []*groupAcc
	for _, s := range series {
		vals := make([]string, len(groupBy))
		for i, l := range groupBy {
			vals[i] = s.Labels[l]
		}
		key := groupKey(vals)
		acc := accs[key]
		if acc == nil {
			labels := make(map[string]string, len(groupBy))
			for i, l := range groupBy {
				labels[l] = vals[i]
			}
			acc = &groupAcc{values: vals, group: Group{Labels: labels, Key: key}, ids: map[string]struct{}{},
				kOf: map[string]int{}, drafts: map[string][]float64{}}
			accs[key] = acc
			order = append(order, acc)
		}
		var skip string
		switch {
		case s.Family < Drafts || s.Family > AcceptedPerPosition:
			skip = fmt.Sprintf("series %s of unknown counter family %d skipped", LabelString(s.Labels), int(s.Family))
		case s.Family == AcceptedPerPosition && (s.Position < 0 || s.Position > MaxPosition):
			skip = fmt.Sprintf("accepted-per-position series %s with position %d skipped: positions must be 0..%d",
				LabelString(s.Labels), s.Position, MaxPosition)
		}
		if skip != "" {
			acc.group.Skipped = append(acc.group.Skipped, skip)
			continue
		}
		id := identity(s.Labels)
		acc.ids[id] = struct{}{}
		inc := BucketIncreasesSince(s.Points, s.Created, g)
		switch s.Family {
		case AcceptedPerPosition:
			acc.kOf[id] = max(acc.kOf[id], s.Position+1)
		case Drafts:
			if d := acc.drafts[id]; d != nil {
				addInto(d, inc)
			} else {
				acc.drafts[id] = slices.Clone(inc)
			}
		}
		if s.Family == AcceptedPerPosition {
			for len(acc.perPos) <= s.Position {
				acc.perPos = append(acc.perPos, nil)
			}
			if acc.perPos[s.Position] == nil {
				acc.perPos[s.Position] = inc
			} else {
				addInto(acc.perPos[s.Position], inc)
			}
			continue
		}
		if acc.group.Buckets == nil {
			acc.group.Buckets = make([]Counts, n)
		}
		for j, v := range inc {
			b := &acc.group.Buckets[j]
			switch s.Family {
			case Drafts:
				b.Drafts += v
			case DraftTokens:
				b.DraftTokens += v
			case AcceptedTokens:
				b.AcceptedTokens += v
			}
		}
	}
	slices.SortFunc(order, func(a, b *groupAcc) int { return slices.Compare(a.values, b.values) })
	out := make([]Group, 0, len(order))
	for _, acc := range order {
		out = append(out, acc.finish(n))
	}
	return out
}

func addInto(dst, src []float64) {
	for i, v := range src {
		dst[i] += v
	}
}

// finish lays out the per-position buckets, fills Total and Series.
func (acc *groupAcc) finish(n int) Group {
	g := &acc.group
	if g.Buckets == nil {
		g.Buckets = make([]Counts, n)
	}
	k := len(acc.perPos)
	// One backing array for all per-position slices of the buckets.
	backing := make([]float64, k*(n+1))
	g.Total.AcceptedPerPosition = backing[n*k : (n+1)*k : (n+1)*k]
	for j := range g.Buckets {
		b := &g.Buckets[j]
		b.AcceptedPerPosition = backing[j*k : (j+1)*k : (j+1)*k]
		for p, inc := range acc.perPos {
			if inc != nil {
				b.AcceptedPerPosition[p] = inc[j]
			}
		}
		g.Total.addInPlace(*b)
	}
	g.Series = len(acc.ids)
	acc.draftsAtPosition(k)
	return *g
}

// draftsAtPosition sets DraftsAtPosition of the group's buckets and total
// when its series mix k (a series with drafts whose k differs from the
// group's k, which is the largest): position i's denominator is then the
// drafts of the series with k > i only, so that a position some series
// never draft is not diluted by their drafts. With one k it stays nil.
func (acc *groupAcc) draftsAtPosition(k int) {
	if k == 0 {
		return
	}
	mixed := false
	for id := range acc.drafts {
		if acc.kOf[id] != k {
			mixed = true
			break
		}
	}
	if !mixed {
		return
	}
	g := &acc.group
	n := len(g.Buckets)
	backing := make([]float64, k*(n+1))
	g.Total.DraftsAtPosition = backing[n*k : (n+1)*k : (n+1)*k]
	for j := range g.Buckets {
		g.Buckets[j].DraftsAtPosition = backing[j*k : (j+1)*k : (j+1)*k]
	}
	for id, d := range acc.drafts {
		for i := range min(acc.kOf[id], k) {
			for j, v := range d {
				g.Buckets[j].DraftsAtPosition[i] += v
				g.Total.DraftsAtPosition[i] += v
			}
		}
	}
}

// Add returns c + o: each count summed, AcceptedPerPosition summed by
// position with the longer length, and the per-position denominators
// (PositionDrafts) summed by position when c and o have different k (a
// side without position i adds no drafts to it). Neither c nor o is
// modified and the result aliases neither.
func (c Counts) Add(o Counts) Counts {
	r := Counts{AcceptedPerPosition: make([]float64, max(len(c.AcceptedPerPosition), len(o.AcceptedPerPosition)))}
	r.addInPlace(c)
	r.addInPlace(o)
	return r
}

// addInPlace adds o to c, growing c.AcceptedPerPosition only when o's is
// longer (otherwise it writes into c's backing array). A position beyond
// one side's k gets none of that side's drafts: when the sides' k differ,
// the per-position denominators become DraftsAtPosition (nil again when
// they all equal Drafts).
func (c *Counts) addInPlace(o Counts) {
	kc, ko := len(c.AcceptedPerPosition), len(o.AcceptedPerPosition)
	var dap []float64
	if c.DraftsAtPosition != nil || o.DraftsAtPosition != nil || kc != ko {
		k := max(kc, ko)
		dap = make([]float64, k)
		total := c.Drafts + o.Drafts
		same := true
		for i := range k {
			if i < kc {
				dap[i] = c.PositionDrafts(i)
			}
			if i < ko {
				dap[i] += o.PositionDrafts(i)
			}
			same = same && dap[i] == total
		}
		if same {
			dap = nil
		}
	}
	c.Drafts += o.Drafts
	c.DraftTokens += o.DraftTokens
	c.AcceptedTokens += o.AcceptedTokens
	if ko > kc {
		grown := make([]float64, ko)
		copy(grown, c.AcceptedPerPosition)
		c.AcceptedPerPosition = grown
	}
	addInto(c.AcceptedPerPosition, o.AcceptedPerPosition)
	c.DraftsAtPosition = dap
}

// Sum adds groups into one: the "total" row. Labels is nil; Total, Buckets
// (by index, the longest length) and Series are summed; k is the largest k
// of the groups; Skipped is concatenated. The inputs are not modified.
func Sum(groups []Group) Group {
	var out Group
	k, n := 0, 0
	for _, g := range groups {
		k = max(k, len(g.Total.AcceptedPerPosition))
		n = max(n, len(g.Buckets))
		for _, b := range g.Buckets {
			k = max(k, len(b.AcceptedPerPosition))
		}
	}
	out.Buckets = make([]Counts, n)
	backing := make([]float64, k*(n+1))
	out.Total.AcceptedPerPosition = backing[n*k : (n+1)*k : (n+1)*k]
	for j := range out.Buckets {
		out.Buckets[j].AcceptedPerPosition = backing[j*k : (j+1)*k : (j+1)*k]
	}
	for _, g := range groups {
		out.Total.addInPlace(g.Total)
		for j, b := range g.Buckets {
			out.Buckets[j].addInPlace(b)
		}
		out.Series += g.Series
		out.Skipped = append(out.Skipped, g.Skipped...)
	}
	return out
}

// TotalStats derives the group's numbers over the whole grid: Derive(g.Total,
// grid.Seconds(), conv).
func (g Group) TotalStats(grid Grid, conv Convention) Stats {
	return Derive(g.Total, grid.Seconds(), conv)
}

// BucketStats derives each bucket of the group over one grid step
// (grid.Step/1000 seconds): element j is Derive(g.Buckets[j], step, conv).
// Buckets without drafts have undefined ratios (JSON null), never NaN.
func (g Group) BucketStats(grid Grid, conv Convention) []Stats {
	out := make([]Stats, len(g.Buckets))
	sec := grid.StepSeconds()
	for j, b := range g.Buckets {
		out[j] = Derive(b, sec, conv)
	}
	return out
}

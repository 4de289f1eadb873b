package compute

// CONTRACT STUBS: the compute helper replaces this file with real
// implementations (same names and signatures; more may be added).

// Value is a derived number that may be undefined (for example a ratio with
// no drafts in the window). It marshals to JSON null when !OK.
type Value struct {
	V  float64
	OK bool
}

// Stats are the derived numbers for one interval. JSON field names are the
// ones `specdash report --format=json` prints.
type Stats struct {
	WindowSeconds             float64    `json:"-"`
	K                         int        `json:"k"`
	Drafts                    float64    `json:"drafts"`
	DraftTokens               float64    `json:"draft_tokens"`
	AcceptedTokens            float64    `json:"accepted_tokens"`
	AcceptedPerPosition       []float64  `json:"accepted_per_position"`
	AcceptanceRate            Value      `json:"acceptance_rate"`
	MeanAcceptanceLength      Value      `json:"mean_acceptance_length"`
	PerPositionAcceptanceRate []Value    `json:"per_position_acceptance_rate"`
	AcceptedThroughput        Value      `json:"accepted_throughput"`
	DraftedThroughput         Value      `json:"drafted_throughput"`
	DraftsPerSecond           Value      `json:"drafts_per_second"`
	Convention                Convention `json:"-"`
	Violations                []string   `json:"violations,omitempty"`
}

// Group is a set of series aggregated together.
type Group struct {
	Labels  map[string]string
	Total   Counts
	Buckets []Counts
	Series  int
}

func (g Grid) Buckets() int          { panic("todo") }
func (g Grid) Seconds() float64      { panic("todo") }
func (g Grid) BucketEnd(j int) int64 { panic("todo") }

func Increase(points []Point, from, to int64) float64             { panic("todo") }
func BucketIncreases(points []Point, g Grid) []float64            { panic("todo") }
func Aggregate(series []Series, groupBy []string, g Grid) []Group { panic("todo") }
func Sum(groups []Group) Group                                    { panic("todo") }
func Derive(c Counts, seconds float64, conv Convention) Stats     { panic("todo") }
func Check(c Counts) []string                                     { panic("todo") }
func FormatLogLine(s Stats) string                                { panic("todo") }

//go:build !js

package metricsclient

import (
	"github.com/prometheus/prometheus/promql/parser"
)

// stepLocalParser parses with Prometheus' default options: experimental
// syntax (duration expressions such as range(), smoothed or anchored
// selectors) does not parse, so it is never called step-local.
var stepLocalParser = parser.NewParser(parser.Options{})

// StepLocal reports whether the value of a range query at each step point
// depends only on that point's time and the source's samples, not on the
// query's start or end: no `@` modifier (`@ start()`, `@ end()`, or a fixed
// time), no subquery (its inner steps are aligned to its own range), no
// duration expression. The answer of such a query over a grid is the union
// of its answers over parts of that grid, which is what lets the server's
// proxy keep the settled points of a range answer and ask the source only
// for the rest (server/rangecache.go). A query that does not parse is not
// step-local.
//
// Host only (the proxy runs on the server): the PromQL parser is not part
// of the browser's wasm.
func StepLocal(query string) bool {
	expr, err := stepLocalParser.ParseExpr(query)
	if err != nil || expr == nil {
		return false
	}
	ok := true
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		switch n := n.(type) {
		case nil: // Walk's call after a node's children
		case *parser.AggregateExpr, *parser.BinaryExpr, *parser.Call, parser.Expressions,
			*parser.NumberLiteral, *parser.StringLiteral, *parser.ParenExpr, *parser.UnaryExpr:
		case *parser.MatrixSelector:
			if n.RangeExpr != nil {
				ok = false
			}
		case *parser.VectorSelector:
			if n.Timestamp != nil || n.StartOrEnd != 0 || n.OriginalOffsetExpr != nil || n.Anchored || n.Smoothed {
				ok = false
			}
		default:
			ok = false
		}
		return nil
	})
	return ok
}

// Package benchsummary is how benchmarks report a figure for the summary
// table `make bench` prints at its end (hack/benchsummary collects the
// lines). A figure has a same-run floor when one exists, and a goal on the
// ratio figure/floor or, without a floor, on the figure itself.
package benchsummary

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Prefix starts every summary line on standard output.
const Prefix = "BENCHSUMMARY "

// Figure is one measured number and what it is held against.
type Figure struct {
	// Name says what was measured, e.g. "clusters API p99, sync/plain".
	Name string `json:"name"`
	// Value and Unit are the measurement.
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// Floor is the same-run baseline in Unit; 0 when there is none.
	Floor float64 `json:"floor,omitempty"`
	// Op ("<=", "<", ">=") and Limit are the goal (none when Op is "",
	// for a figure shown for what it explains): on Value/Floor when
	// there is a floor and the goal is not Absolute, else on Value.
	Op       string  `json:"op"`
	Limit    float64 `json:"limit"`
	Absolute bool    `json:"absolute,omitempty"`
}

// Ratio is Value/Floor, or Value when there is no floor.
func (f Figure) Ratio() float64 {
	if f.Floor == 0 {
		return f.Value
	}
	return f.Value / f.Floor
}

// Holds reports whether the goal is met.
func (f Figure) Holds() bool {
	r := f.Ratio()
	if f.Absolute {
		r = f.Value
	}
	switch f.Op {
	case "<":
		return r < f.Limit
	case "<=":
		return r <= f.Limit
	case ">=":
		return r >= f.Limit
	case ">":
		return r > f.Limit
	}
	return false
}

// Goal renders the goal, e.g. "ratio <= 1.2" or "< 50 ms".
func (f Figure) Goal() string {
	if f.Op == "" {
		return "-"
	}
	if f.Floor == 0 || f.Absolute {
		return fmt.Sprintf("%s %g %s", f.Op, f.Limit, f.Unit)
	}
	return fmt.Sprintf("ratio %s %g", f.Op, f.Limit)
}

// Print writes f as one summary line on standard output.
func Print(f Figure) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep "<=" readable in the log
	if err := enc.Encode(f); err != nil {
		panic(err) // a struct of strings and numbers always encodes
	}
	fmt.Fprint(os.Stdout, Prefix+b.String()) // Encode ends the line
}

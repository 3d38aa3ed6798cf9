// Command benchsummary reads `go test -bench` output on standard input and
// prints one table of the figures the benchmarks reported with
// internal/testkit/benchsummary: figure, floor, ratio, goal, and whether it holds.
// A figure reported twice keeps its last value. It exits 0 either way: the
// table is a report, not a test.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/ochestra-tech/kubeopera/internal/testkit/benchsummary"
)

func main() {
	figures, err := collect(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchsummary:", err)
		os.Exit(1)
	}
	write(os.Stdout, figures)
}

// collect returns the summary figures in the order first seen.
func collect(r io.Reader) ([]benchsummary.Figure, error) {
	var order []string
	byName := map[string]benchsummary.Figure{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		_, line, ok := strings.Cut(sc.Text(), benchsummary.Prefix)
		if !ok {
			continue
		}
		var f benchsummary.Figure
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			return nil, fmt.Errorf("summary line %q: %w", line, err)
		}
		if _, seen := byName[f.Name]; !seen {
			order = append(order, f.Name)
		}
		byName[f.Name] = f
	}
	out := make([]benchsummary.Figure, 0, len(order))
	for _, n := range order {
		out = append(out, byName[n])
	}
	return out, sc.Err()
}

func write(w io.Writer, figures []benchsummary.Figure) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tvalue\tfloor\tratio\tgoal\tholds")
	for _, f := range figures {
		floor, ratio := "-", "-"
		if f.Floor != 0 {
			floor = num(f.Floor) + " " + f.Unit
			ratio = fmt.Sprintf("%.2f", f.Ratio())
		}
		holds := "no"
		switch {
		case f.Op == "":
			holds = "-"
		case f.Holds():
			holds = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s %s\t%s\t%s\t%s\t%s\n", f.Name, num(f.Value), f.Unit, floor, ratio, f.Goal(), holds)
	}
	tw.Flush()
}

// num shows three significant digits, and large numbers whole.
func num(v float64) string {
	if math.Abs(v) >= 1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSummaryTableKeepsTheLastValueAndJudgesEachGoal(t *testing.T) {
	in := `goos: linux
BenchmarkX-2   1   5 ns/op
BENCHSUMMARY {"name":"api p99 sync/plain","value":12,"unit":"ms","floor":10,"op":"<=","limit":1.2}
BENCHSUMMARY {"name":"rss","value":350,"unit":"MiB","op":"<=","limit":300}
BENCHSUMMARY {"name":"api p99 sync/plain","value":13,"unit":"ms","floor":10,"op":"<=","limit":1.2}
BENCHSUMMARY {"name":"fan-out","value":600,"unit":"ms","floor":50,"op":"<=","limit":1000,"absolute":true}
BENCHSUMMARY {"name":"checksum","value":90,"unit":"ms"}
`
	figures, err := collect(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	write(&out, figures)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("table:\n%s\nwant a header and 4 figures", out.String())
	}
	for i, want := range []string{"api p99 sync/plain  13 ms", "rss", "fan-out", "checksum"} {
		if !strings.HasPrefix(lines[i+1], want) {
			t.Errorf("line %d = %q, want it to start %q", i+1, lines[i+1], want)
		}
	}
	for i, holds := range []string{"no", "no", "yes", "-"} {
		if f := strings.Fields(lines[i+1]); f[len(f)-1] != holds {
			t.Errorf("line %q: holds %q, want %q", lines[i+1], f[len(f)-1], holds)
		}
	}
	if !strings.Contains(lines[1], "1.30") || !strings.Contains(lines[1], "ratio <= 1.2") {
		t.Errorf("ratio line = %q, want ratio 1.30 against goal ratio <= 1.2", lines[1])
	}
}

package federation

import "testing"

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		rows []Row
		want Summary
	}{
		{
			name: "no clusters give zero totals and no division by zero",
			want: Summary{Currency: "USD"},
		},
		{
			name: "reachable rows are summed and CPU averaged over them",
			rows: []Row{
				{Reachable: true, Badge: "green", NodesReady: 3, NodesTotal: 3, CPUPercent: 40, MonthlyCost: 100},
				{Reachable: true, Badge: "yellow", NodesReady: 1, NodesTotal: 2, CPUPercent: 80, MonthlyCost: 50.5},
				{Reachable: true, Badge: "green", NodesReady: 0, NodesTotal: 1, CPUPercent: 0, MonthlyCost: 0},
			},
			want: Summary{Clusters: 3, Healthy: 2, NodesReady: 4, NodesTotal: 6, AverageCPUPercent: 40, MonthlyCost: 150.5, Currency: "USD"},
		},
		{
			name: "unreachable rows count as clusters but not in usage, nodes or health",
			rows: []Row{
				{Reachable: true, Badge: "green", NodesReady: 2, NodesTotal: 2, CPUPercent: 30, MonthlyCost: 10},
				{Reachable: false, Badge: "green", NodesReady: 9, NodesTotal: 9, CPUPercent: 99, MonthlyCost: 99, Error: "timed out after 5s"},
			},
			want: Summary{Clusters: 2, Healthy: 1, NodesReady: 2, NodesTotal: 2, AverageCPUPercent: 30, MonthlyCost: 10, Currency: "USD"},
		},
		{
			name: "Ready counts the rows whose status is Ready, not those with a green health badge, reachable or not",
			rows: []Row{
				{Status: "Ready", Reachable: true, Badge: "red"},
				{Status: "InstallingKubeOpera", Reachable: true, Badge: "green"},
				{Status: "Ready", Error: "timed out after 5s"},
				{Badge: "green", Reachable: true}, // CLUSTER_REGISTRY: no status
			},
			want: Summary{Clusters: 4, Healthy: 2, Ready: 2, Currency: "USD"},
		},
		{
			name: "all unreachable averages to zero",
			rows: []Row{{Error: "x"}, {Error: "y"}},
			want: Summary{Clusters: 2, Currency: "USD"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(tt.rows, "USD")
			if got.Clusters != tt.want.Clusters || got.Healthy != tt.want.Healthy ||
				got.NodesReady != tt.want.NodesReady || got.NodesTotal != tt.want.NodesTotal ||
				!near(got.AverageCPUPercent, tt.want.AverageCPUPercent) ||
				!near(got.MonthlyCost, tt.want.MonthlyCost) || got.Currency != tt.want.Currency {
				t.Errorf("summarize = %+v, want %+v", got, tt.want)
			}
		})
	}
}

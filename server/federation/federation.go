package federation

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
)

// Defaults for the zero fields of Options.
const (
	// DefaultTimeout bounds how long Build waits for one cluster.
	DefaultTimeout = 5 * time.Second
	// DefaultConcurrency caps the clusters asked at once: 1,000 clusters
	// answering in 50ms each take about half a second, while the server
	// holds at most this many connections and client goroutines.
	DefaultConcurrency = 100
	// DefaultCacheTTL is how long a Cache serves an overview it built.
	DefaultCacheTTL = 5 * time.Second
)

// Target is one cluster to ask.
type Target struct {
	// ID and Name are copied into the cluster's Row, and Status (the
	// cluster's phase in KubeOpera; "" for a cluster it does not manage).
	ID, Name, Status string
	// Config connects to the cluster's API server.
	Config *rest.Config
}

// Report is what assessing one reachable cluster yields.
type Report struct {
	// Score and Badge ("green", "yellow", "red") come from a health check.
	Score float64
	Badge string
	// NodesReady counts the nodes whose Ready condition is True.
	NodesReady, NodesTotal int
	// CPUPercent and MemoryPercent are cluster-wide usage, 0–100.
	CPUPercent, MemoryPercent float64
	// Nodes are priced by their instance-type label.
	Nodes []corev1.Node
}

// Assessor assesses one cluster. It should return when ctx is done; Build
// stops waiting at that point even if it does not.
type Assessor func(ctx context.Context, cfg *rest.Config) (Report, error)

// Options tune Build. The zero value is usable.
type Options struct {
	// Timeout bounds each cluster separately; DefaultTimeout if zero.
	Timeout time.Duration
	// Assess is DefaultAssessor if nil.
	Assess Assessor
	// Pricing is DefaultPricing() if nil.
	Pricing *Pricing
	// Concurrency caps clusters asked at once; DefaultConcurrency if zero.
	Concurrency int
	// CacheTTL is how long a Cache built with these options serves one
	// overview; DefaultCacheTTL if zero, no reuse once built if negative
	// (concurrent requests still share one fan-out). Build ignores it.
	CacheTTL time.Duration
	// StatusBadge colours a row's Status (Row.StatusBadge); rows have
	// none if nil.
	StatusBadge func(status string) string
}

// Row is one cluster's line in the overview.
type Row struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Status is the cluster's phase in KubeOpera and StatusBadge its
	// colour, as GET /clusters gives them; both empty for a cluster
	// KubeOpera does not manage (CLUSTER_REGISTRY, the host alone).
	Status      string  `json:"status,omitempty"`
	StatusBadge string  `json:"statusBadge,omitempty"`
	Reachable   bool    `json:"reachable"`
	Error       string  `json:"error,omitempty"`
	Score       float64 `json:"score"`
	Badge       string  `json:"badge,omitempty"`
	// NodesReady and NodesTotal count the cluster's nodes.
	NodesReady    int     `json:"nodesReady"`
	NodesTotal    int     `json:"nodesTotal"`
	CPUPercent    float64 `json:"cpuPercent"`
	MemoryPercent float64 `json:"memoryPercent"`
	// MonthlyCost is the estimated price of the priced nodes per month.
	MonthlyCost float64 `json:"monthlyCost"`
	// UnpricedNodes have no instance-type label or one not in the table.
	UnpricedNodes int `json:"unpricedNodes"`
}

// Summary totals the rows of an overview.
type Summary struct {
	// Clusters counts all targets; Healthy the reachable ones badged green.
	Clusters int `json:"clusters"`
	Healthy  int `json:"healthy"`
	// Ready counts the rows whose Status is Ready.
	Ready int `json:"ready"`
	// NodesReady and NodesTotal are summed over reachable clusters.
	NodesReady int `json:"nodesReady"`
	NodesTotal int `json:"nodesTotal"`
	// AverageCPUPercent is the mean over reachable clusters, 0 if none.
	AverageCPUPercent float64 `json:"averageCpuPercent"`
	MonthlyCost       float64 `json:"monthlyCost"`
	Currency          string  `json:"currency"`
}

// Overview is the multi-cluster view: totals and one row per target.
type Overview struct {
	Summary  Summary `json:"summary"`
	Clusters []Row   `json:"clusters"`
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults(targets int) Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Assess == nil {
		o.Assess = DefaultAssessor
	}
	if o.Pricing == nil {
		o.Pricing = DefaultPricing()
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	o.Concurrency = max(min(o.Concurrency, targets), 1)
	return o
}

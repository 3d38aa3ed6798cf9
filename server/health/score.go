// Package health scores a cluster's health from 0 to 100: Collect reads
// nodes, pods, control-plane health and resource use from a live cluster,
// Compute deducts a fixed penalty for every problem it finds there, and
// Badge colours the result for the dashboard.
package health

import (
	"cmp"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Component is the health of one control-plane component, e.g.
// "kube-apiserver", "etcd", "kube-scheduler" or "kube-controller-manager".
type Component struct {
	Name    string
	Healthy bool
	// Message says why the component is unhealthy, or how it was judged.
	Message string
}

// Usage is how much of the cluster's allocatable CPU and memory is in use,
// as fractions (1 is all of it).
type Usage struct {
	CPUFraction, MemoryFraction float64
	// Source is where the figures come from: UsageFromMetrics or
	// UsageFromRequests.
	Source string
}

// Sources of Usage.
const (
	// UsageFromMetrics is measured use, summed from metrics.k8s.io NodeMetrics.
	UsageFromMetrics = "metrics.k8s.io"
	// UsageFromRequests is reserved use: the resource requests of the pods
	// running on nodes, used when the cluster serves no metrics.k8s.io.
	UsageFromRequests = "requests"
)

// Input is what Compute scores.
type Input struct {
	Nodes        []corev1.Node
	Pods         []corev1.Pod
	ControlPlane []Component
	Usage        Usage
}

// Finding is one problem found and the points it cost.
type Finding struct {
	// Rule names the penalty, one of the Rule constants.
	Rule string `json:"rule"`
	// Subject is what the rule found the problem in: a node name, a pod as
	// namespace/name, a control-plane component name, or "control-plane",
	// "pods", "cpu", "memory" for cluster-wide rules.
	Subject string `json:"subject"`
	// Penalty is the number of points deducted, always positive.
	Penalty float64 `json:"penalty"`
	Detail  string  `json:"detail"`
}

// Score is a cluster's health score and how it came about.
type Score struct {
	// Score is 100 minus the Findings' penalties, clamped to 0..100.
	Score float64 `json:"score"`
	// Badge is Badge(Score).
	Badge    string    `json:"badge"`
	Findings []Finding `json:"findings"`
	// UsageSource is the Source of the usage figures.
	UsageSource string `json:"usageSource"`
	// CPUPercent and MemoryPercent are the usage fractions in percent,
	// rounded to two decimals.
	CPUPercent    float64 `json:"cpuPercent"`
	MemoryPercent float64 `json:"memoryPercent"`
}

// Badges colour a score.
const (
	BadgeGreen = "green"
	BadgeAmber = "amber"
	BadgeRed   = "red"
)

// Badges lists every badge a score can have (BadgeUnknown when it cannot
// be judged): the REST API documents the field with this list as its enum.
var Badges = []string{BadgeGreen, BadgeAmber, BadgeRed, BadgeUnknown}

// Compute scores in: it starts from 100 and deducts one penalty per finding
// (see the Rule constants for the table). Findings come in a stable order,
// whatever the order of in's slices: node rules by node name, pod rules by
// namespace/name, then restarts, control plane (components by name) and
// usage.
func Compute(in Input) Score {
	// Empty, never nil: the API sends a healthy cluster's findings as [],
	// which its document (an array, always present) and the dashboard expect.
	findings := []Finding{}
	findings = append(findings, nodeFindings(in.Nodes)...)
	findings = append(findings, podFindings(in.Pods)...)
	findings = append(findings, controlPlaneFindings(in.ControlPlane)...)
	findings = append(findings, usageFindings(in.Usage)...)
	score := 100.0
	for _, f := range findings {
		score -= f.Penalty
	}
	score = math.Min(100, math.Max(0, score))
	return Score{
		Score:         score,
		Badge:         Badge(score),
		Findings:      findings,
		UsageSource:   in.Usage.Source,
		CPUPercent:    percent(in.Usage.CPUFraction),
		MemoryPercent: percent(in.Usage.MemoryFraction),
	}
}

// Badge colours a score: green from 80, amber from 60 to below 80, red
// below 60.
func Badge(score float64) string {
	switch {
	case score >= 80:
		return BadgeGreen
	case score >= 60:
		return BadgeAmber
	default:
		return BadgeRed
	}
}

func percent(fraction float64) float64 { return math.Round(fraction*10000) / 100 }

// sortedBy returns a sorted copy of s, leaving the caller's slice alone.
func sortedBy[T any](s []T, key func(T) string) []T {
	out := slices.Clone(s)
	slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	return out
}

package health

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// An endpoint with no nodes (not Kubernetes, or nothing to run on) is
// unknown, never a green 100.
func TestJudgeCallsAClusterWithoutNodesUnknown(t *testing.T) {
	got := Judge(Input{Pods: []corev1.Pod{pod("web")}, ControlPlane: allComponents()})
	if got.Badge != BadgeUnknown || got.Score != 0 {
		t.Errorf("no nodes: %v %s, want 0 %s", got.Score, got.Badge, BadgeUnknown)
	}
	if len(got.Findings) != 1 || got.Findings[0].Rule != RuleNoNodes {
		t.Errorf("findings %+v, want one %s", got.Findings, RuleNoNodes)
	}
	healthy := Judge(Input{Nodes: []corev1.Node{readyNode("a")}, ControlPlane: allComponents()})
	if healthy.Badge != BadgeGreen || healthy.Score != 100 {
		t.Errorf("one ready node: %v %s, want 100 green", healthy.Score, healthy.Badge)
	}
}

package federation

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
)

func TestBuildWithDefaultAssessorOverHTTP(t *testing.T) {
	live := fakeAPIServer(t, []corev1.Node{
		node("ready", true, typed("m5.large")),
		node("not-ready", false, map[string]string{betaInstanceTypeLabel: "t3.medium"}),
	}, 0)
	dead := hangingAPIServer(t)
	targets := []Target{
		{ID: "dead", Name: "dead", Config: &rest.Config{Host: dead.URL}},
		{ID: "live", Name: "live", Config: &rest.Config{Host: live.URL}},
		{ID: "none", Name: "no config"},
	}

	start := time.Now()
	ov := Build(context.Background(), targets, Options{Timeout: 500 * time.Millisecond})
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("Build took %v with a 500ms timeout", elapsed)
	}

	if r := ov.Clusters[0]; r.ID != "dead" || r.Reachable || r.Error != "timed out after 500ms" {
		t.Errorf("silent server row = %+v, want unreachable, timed out after 500ms", r)
	}
	r := ov.Clusters[1]
	wantCost := (0.096 + 0.0416) * 730
	if r.ID != "live" || !r.Reachable || r.NodesReady != 1 || r.NodesTotal != 2 ||
		!near(r.MonthlyCost, wantCost) || r.UnpricedNodes != 0 {
		t.Errorf("live server row = %+v, want 1/2 ready nodes costing %v", r, wantCost)
	}
	if r := ov.Clusters[2]; r.Reachable || r.Error != "no connection settings for this cluster" {
		t.Errorf("target without config row = %+v, want unreachable saying so", r)
	}
	if s := ov.Summary; s.NodesReady != 1 || s.NodesTotal != 2 || !near(s.MonthlyCost, wantCost) {
		t.Errorf("summary = %+v", s)
	}
}

func TestDefaultAssessorReportsAPIErrors(t *testing.T) {
	srv := fakeAPIServer(t, nil, 0)
	// A server that 404s on the nodes path, as a non-Kubernetes URL would.
	cfg := &rest.Config{Host: srv.URL + "/not-an-apiserver"}
	_, err := DefaultAssessor(context.Background(), cfg)
	if err == nil {
		t.Fatal("DefaultAssessor succeeded against a server without the nodes API")
	}
	if !strings.HasPrefix(err.Error(), "list nodes: ") {
		t.Errorf("error %q does not say it was listing nodes", err)
	}
}

func TestNodeReady(t *testing.T) {
	tests := []struct {
		name string
		node corev1.Node
		want bool
	}{
		{"ready condition true is ready", node("a", true, nil), true},
		{"ready condition false is not ready", node("a", false, nil), false},
		{"no conditions yet is not ready", corev1.Node{}, false},
		{"unknown status is not ready", corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
			{Type: corev1.NodeReady, Status: corev1.ConditionUnknown},
		}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NodeReady(&tt.node); got != tt.want {
				t.Errorf("NodeReady = %v, want %v", got, tt.want)
			}
		})
	}
}

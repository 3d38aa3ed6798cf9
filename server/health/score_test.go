package health

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// hit is a Finding without its free-text Detail.
type hit struct {
	Rule, Subject string
	Penalty       float64
}

func hits(t *testing.T, fs []Finding) []hit {
	t.Helper()
	var out []hit
	for _, f := range fs {
		if f.Detail == "" {
			t.Errorf("finding %s/%s has no detail", f.Rule, f.Subject)
		}
		out = append(out, hit{f.Rule, f.Subject, f.Penalty})
	}
	return out
}

func penaltySum(fs []Finding) float64 {
	var sum float64
	for _, f := range fs {
		sum += f.Penalty
	}
	return sum
}

func TestCompute(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    Input
		score float64
		badge string
		want  []hit
	}{
		{name: "a healthy cluster scores 100 with no findings",
			in: Input{Nodes: []corev1.Node{readyNode("a"), readyNode("b")}, Pods: []corev1.Pod{pod("web")},
				ControlPlane: allComponents(), Usage: Usage{CPUFraction: 0.5, MemoryFraction: 0.5}},
			score: 100, badge: BadgeGreen},
		{name: "a not-ready node costs 5",
			in:    Input{Nodes: []corev1.Node{readyNode("a"), node("b", cond(corev1.NodeReady, corev1.ConditionFalse))}},
			score: 95, badge: BadgeGreen, want: []hit{{RuleNodeNotReady, "b", 5}}},
		{name: "a node whose Ready is Unknown is not ready",
			in:    Input{Nodes: []corev1.Node{node("b", cond(corev1.NodeReady, corev1.ConditionUnknown))}},
			score: 95, badge: BadgeGreen, want: []hit{{RuleNodeNotReady, "b", 5}}},
		{name: "a node that never reported Ready is not ready",
			in:    Input{Nodes: []corev1.Node{node("b")}},
			score: 95, badge: BadgeGreen, want: []hit{{RuleNodeNotReady, "b", 5}}},
		{name: "three not-ready nodes cost 15",
			in:    Input{Nodes: notReadyNodes(3)},
			score: 85, badge: BadgeGreen,
			want: []hit{{RuleNodeNotReady, "n00", 5}, {RuleNodeNotReady, "n01", 5}, {RuleNodeNotReady, "n02", 5}}},
		{name: "memory pressure costs 3",
			in:    Input{Nodes: []corev1.Node{readyNode("a", corev1.NodeMemoryPressure)}},
			score: 97, badge: BadgeGreen, want: []hit{{RuleNodeMemoryPressure, "a", 3}}},
		{name: "disk pressure costs 4",
			in:    Input{Nodes: []corev1.Node{readyNode("a", corev1.NodeDiskPressure)}},
			score: 96, badge: BadgeGreen, want: []hit{{RuleNodeDiskPressure, "a", 4}}},
		{name: "PID pressure costs 2",
			in:    Input{Nodes: []corev1.Node{readyNode("a", corev1.NodePIDPressure)}},
			score: 98, badge: BadgeGreen, want: []hit{{RuleNodePIDPressure, "a", 2}}},
		{name: "an unavailable network costs 6",
			in:    Input{Nodes: []corev1.Node{readyNode("a", corev1.NodeNetworkUnavailable)}},
			score: 94, badge: BadgeGreen, want: []hit{{RuleNodeNetworkUnavailable, "a", 6}}},
		{name: "pressure conditions that are False or Unknown cost nothing",
			in: Input{Nodes: []corev1.Node{node("a", cond(corev1.NodeReady, corev1.ConditionTrue),
				cond(corev1.NodeMemoryPressure, corev1.ConditionFalse), cond(corev1.NodeDiskPressure, corev1.ConditionUnknown))}},
			score: 100, badge: BadgeGreen},
		{name: "every condition of one node costs its own penalty",
			in: Input{Nodes: []corev1.Node{node("a", cond(corev1.NodeReady, corev1.ConditionFalse),
				cond(corev1.NodeMemoryPressure, corev1.ConditionTrue), cond(corev1.NodeDiskPressure, corev1.ConditionTrue),
				cond(corev1.NodePIDPressure, corev1.ConditionTrue), cond(corev1.NodeNetworkUnavailable, corev1.ConditionTrue))}},
			score: 80, badge: BadgeGreen,
			want: []hit{{RuleNodeNotReady, "a", 5}, {RuleNodeMemoryPressure, "a", 3}, {RuleNodeDiskPressure, "a", 4},
				{RuleNodePIDPressure, "a", 2}, {RuleNodeNetworkUnavailable, "a", 6}}},
		{name: "a failed pod costs 2",
			in:    Input{Pods: []corev1.Pod{pod("web"), pod("job", failed)}},
			score: 98, badge: BadgeGreen, want: []hit{{RulePodFailed, "default/job", 2}}},
		{name: "a crash-looping pod costs 2.5",
			in:    Input{Pods: []corev1.Pod{pod("web", crashLooping(3))}},
			score: 97.5, badge: BadgeGreen, want: []hit{{RulePodCrashLooping, "default/web", 2.5}}},
		{name: "a crash-looping init container counts",
			in: Input{Pods: []corev1.Pod{pod("web", func(p *corev1.Pod) {
				p.Status.Phase = corev1.PodPending
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init",
					State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
			})}},
			score: 97.5, badge: BadgeGreen, want: []hit{{RulePodCrashLooping, "default/web", 2.5}}},
		{name: "a pod crash-looping in two containers costs 2.5 once",
			in: Input{Pods: []corev1.Pod{pod("web", crashLooping(3), func(p *corev1.Pod) {
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, p.Status.ContainerStatuses[0])
			})}},
			score: 97.5, badge: BadgeGreen, want: []hit{{RulePodCrashLooping, "default/web", 2.5}}},
		{name: "a container waiting for another reason is not crash-looping",
			in: Input{Pods: []corev1.Pod{pod("web", func(p *corev1.Pod) {
				p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}
			})}},
			score: 100, badge: BadgeGreen},
		{name: "10 restarting pods cost nothing",
			in:    Input{Pods: restartingPods(10)},
			score: 100, badge: BadgeGreen},
		{name: "11 restarting pods cost 5 once",
			in:    Input{Pods: restartingPods(11)},
			score: 95, badge: BadgeGreen, want: []hit{{RulePodsRestarting, "pods", 5}}},
		{name: "a crash-looping pod also counts as restarting",
			in:    Input{Pods: append(restartingPods(10), pod("web", crashLooping(5)))},
			score: 92.5, badge: BadgeGreen,
			want: []hit{{RulePodCrashLooping, "default/web", 2.5}, {RulePodsRestarting, "pods", 5}}},
		{name: "healthy control-plane components cost nothing",
			in:    Input{ControlPlane: allComponents()},
			score: 100, badge: BadgeGreen},
		{name: "only the API server unhealthy costs 15 plus 8",
			in:    Input{ControlPlane: unhealthy(allComponents(), ComponentAPIServer)},
			score: 77, badge: BadgeAmber,
			want: []hit{{RuleControlPlaneDegraded, "control-plane", 15}, {RuleComponentUnhealthy, ComponentAPIServer, 8}}},
		{name: "API server and etcd unhealthy cost 30 plus 8 each",
			in:    Input{ControlPlane: unhealthy(allComponents(), ComponentAPIServer, ComponentEtcd)},
			score: 54, badge: BadgeRed,
			want: []hit{{RuleControlPlaneDegraded, "control-plane", 30}, {RuleComponentUnhealthy, ComponentEtcd, 8},
				{RuleComponentUnhealthy, ComponentAPIServer, 8}}},
		{name: "only the scheduler unhealthy costs 30 plus 8",
			in:    Input{ControlPlane: unhealthy(allComponents(), ComponentScheduler)},
			score: 62, badge: BadgeAmber,
			want: []hit{{RuleControlPlaneDegraded, "control-plane", 30}, {RuleComponentUnhealthy, ComponentScheduler, 8}}},
		{name: "CPU at 79.9% costs nothing", in: Input{Usage: Usage{CPUFraction: 0.799}}, score: 100, badge: BadgeGreen},
		{name: "CPU at 80% costs 5", in: Input{Usage: Usage{CPUFraction: 0.80}},
			score: 95, badge: BadgeGreen, want: []hit{{RuleCPUHigh, "cpu", 5}}},
		{name: "CPU at 94.9% costs 5", in: Input{Usage: Usage{CPUFraction: 0.949}},
			score: 95, badge: BadgeGreen, want: []hit{{RuleCPUHigh, "cpu", 5}}},
		{name: "CPU at 95% costs 10", in: Input{Usage: Usage{CPUFraction: 0.95}},
			score: 90, badge: BadgeGreen, want: []hit{{RuleCPUCritical, "cpu", 10}}},
		{name: "memory at 79.9% costs nothing", in: Input{Usage: Usage{MemoryFraction: 0.799}}, score: 100, badge: BadgeGreen},
		{name: "memory at 80% costs 5", in: Input{Usage: Usage{MemoryFraction: 0.80}},
			score: 95, badge: BadgeGreen, want: []hit{{RuleMemoryHigh, "memory", 5}}},
		{name: "memory at 94.9% costs 5", in: Input{Usage: Usage{MemoryFraction: 0.949}},
			score: 95, badge: BadgeGreen, want: []hit{{RuleMemoryHigh, "memory", 5}}},
		{name: "memory at 95% costs 10", in: Input{Usage: Usage{MemoryFraction: 0.95}},
			score: 90, badge: BadgeGreen, want: []hit{{RuleMemoryCritical, "memory", 10}}},
		{name: "CPU and memory are penalised independently",
			in:    Input{Usage: Usage{CPUFraction: 1.2, MemoryFraction: 0.85}},
			score: 85, badge: BadgeGreen, want: []hit{{RuleCPUCritical, "cpu", 10}, {RuleMemoryHigh, "memory", 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Compute(tc.in)
			if got.Score != tc.score || got.Badge != tc.badge {
				t.Errorf("score %v %s, want %v %s", got.Score, got.Badge, tc.score, tc.badge)
			}
			if h := hits(t, got.Findings); !slices.Equal(h, tc.want) {
				t.Errorf("findings\n got %v\nwant %v", h, tc.want)
			}
			if sum := penaltySum(got.Findings); sum != 100-tc.score {
				t.Errorf("findings sum to %v, want 100 - %v", sum, tc.score)
			}
		})
	}
}

// A healthy cluster's findings are sent as [], not null: the API documents
// an array that is always there.
func TestComputeSendsNoFindingsAsAnEmptyList(t *testing.T) {
	b, err := json.Marshal(Compute(Input{Nodes: []corev1.Node{readyNode("a")}, ControlPlane: allComponents()}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"findings":[]`) {
		t.Errorf("score = %s, want \"findings\":[]", b)
	}
}

func TestComputeClampsAtZero(t *testing.T) {
	got := Compute(Input{Nodes: notReadyNodes(30)})
	if got.Score != 0 || got.Badge != BadgeRed {
		t.Errorf("score %v %s, want 0 red", got.Score, got.Badge)
	}
	// The findings still account for the whole, unclamped deduction.
	if sum := penaltySum(got.Findings); sum != 150 || len(got.Findings) != 30 {
		t.Errorf("%d findings sum to %v, want 30 summing to 150 (100 - -50)", len(got.Findings), sum)
	}
}

func TestComputeOrdersFindingsByName(t *testing.T) {
	nodes := []corev1.Node{node("zeta"), node("alpha")}
	pods := []corev1.Pod{pod("web", failed), pod("api", failed)}
	cp := unhealthy(healthy(ComponentScheduler, ComponentAPIServer), ComponentScheduler, ComponentAPIServer)
	got := hits(t, Compute(Input{Nodes: nodes, Pods: pods, ControlPlane: cp}).Findings)
	want := []hit{
		{RuleNodeNotReady, "alpha", 5}, {RuleNodeNotReady, "zeta", 5},
		{RulePodFailed, "default/api", 2}, {RulePodFailed, "default/web", 2},
		{RuleControlPlaneDegraded, "control-plane", 30},
		{RuleComponentUnhealthy, ComponentAPIServer, 8}, {RuleComponentUnhealthy, ComponentScheduler, 8},
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n got %v\nwant %v", got, want)
	}
	if nodes[0].Name != "zeta" || pods[0].Name != "web" || cp[0].Name != ComponentScheduler {
		t.Error("Compute reordered the caller's slices")
	}
}

func TestComputeReportsUsage(t *testing.T) {
	got := Compute(Input{Usage: Usage{CPUFraction: 10.0 / 12, MemoryFraction: 0.25, Source: UsageFromRequests}})
	if got.CPUPercent != 83.33 || got.MemoryPercent != 25 || got.UsageSource != UsageFromRequests {
		t.Errorf("usage %v%% cpu, %v%% memory from %q; want 83.33, 25 from %q",
			got.CPUPercent, got.MemoryPercent, got.UsageSource, UsageFromRequests)
	}
}

func TestBadge(t *testing.T) {
	for _, tc := range []struct {
		score float64
		want  string
	}{
		{100, BadgeGreen}, {80, BadgeGreen}, {79.5, BadgeAmber}, {60, BadgeAmber}, {59.5, BadgeRed}, {0, BadgeRed},
	} {
		if got := Badge(tc.score); got != tc.want {
			t.Errorf("Badge(%v) = %s, want %s", tc.score, got, tc.want)
		}
	}
}

package health

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// TestAssessSandbox scores a real cluster: three nodes of 4 CPU and 16Gi
// (one Ready, one NotReady, one Ready under memory and disk pressure), a
// Failed pod, a crash-looping pod requesting 10 CPU and 46Gi, and a pending
// pod no node takes. The sandbox's control plane is healthy and runs no
// static pods, and it serves no metrics.k8s.io.
func TestAssessSandbox(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Options{Nodes: []sandbox.Node{
		{Name: "ready", Conditions: []corev1.NodeCondition{cond(corev1.NodeReady, corev1.ConditionTrue)}},
		{Name: "down", Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletDown"}}},
		{Name: "pressured", Conditions: []corev1.NodeCondition{
			cond(corev1.NodeReady, corev1.ConditionTrue), cond(corev1.NodeMemoryPressure, corev1.ConditionTrue),
			cond(corev1.NodeDiskPressure, corev1.ConditionTrue), cond(corev1.NodePIDPressure, corev1.ConditionFalse)}},
	}})
	if err != nil {
		t.Fatalf("start sandbox: %v", err)
	}
	t.Cleanup(func() {
		if err := sb.Stop(); err != nil {
			t.Errorf("stop sandbox: %v", err)
		}
	})

	// Terminated and unscheduled pods must not count towards the requests:
	// either would push CPU use past 95%.
	createPod(ctx, t, sb.Client, "failed", "ready", requests("4", "8Gi"), func(s *corev1.PodStatus) {
		s.Phase, s.Reason = corev1.PodFailed, "Evicted"
	})
	createPod(ctx, t, sb.Client, "crashloop", "ready", requests("10", "46Gi"), func(s *corev1.PodStatus) {
		s.Phase = corev1.PodRunning
		s.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Image: "registry.invalid/app:1", RestartCount: 5,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
	})
	createPod(ctx, t, sb.Client, "pending", "", requests("4", "1Gi"), nil)

	got, err := Assess(ctx, sb.Client)
	if err != nil {
		t.Fatalf("assess: %v", err)
	}
	want := []hit{
		{RuleNodeNotReady, "down", 5},
		{RuleNodeMemoryPressure, "pressured", 3},
		{RuleNodeDiskPressure, "pressured", 4},
		{RulePodCrashLooping, "default/crashloop", 2.5},
		{RulePodFailed, "default/failed", 2},
		{RuleCPUHigh, "cpu", 5},            // 10 of 12 CPU requested
		{RuleMemoryCritical, "memory", 10}, // 46 of 48Gi requested
	}
	if h := hits(t, got.Findings); !slices.Equal(h, want) {
		t.Errorf("findings\n got %v\nwant %v", h, want)
	}
	if got.Score != 68.5 || got.Badge != BadgeAmber {
		t.Errorf("score %v %s, want 68.5 amber", got.Score, got.Badge)
	}
	if got.UsageSource != UsageFromRequests || got.CPUPercent != 83.33 || got.MemoryPercent != 95.83 {
		t.Errorf("usage %v%% cpu, %v%% memory from %q; want 83.33, 95.83 from %q",
			got.CPUPercent, got.MemoryPercent, got.UsageSource, UsageFromRequests)
	}

	// The API server and etcd are seen and healthy; the scheduler and
	// controller manager run as plain processes, not static pods, so they
	// are not reported (and cost nothing), as on a managed control plane.
	in, err := Collect(ctx, sb.Client)
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	if h, want := healths(in.ControlPlane), []health{{ComponentAPIServer, true}, {ComponentEtcd, true}}; !slices.Equal(h, want) {
		t.Errorf("control plane %v (%+v), want %v", h, in.ControlPlane, want)
	}
}

// createPod creates default/name bound to nodeName (none: left to the
// scheduler) and, when status is given, sets its status through the status
// subresource.
func createPod(ctx context.Context, t *testing.T, cs kubernetes.Interface, name, nodeName string,
	res corev1.ResourceRequirements, status func(*corev1.PodStatus)) {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{NodeName: nodeName,
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/app:1", Resources: res}}},
	}
	pods := cs.CoreV1().Pods("default")
	if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s: %v", name, err)
	}
	if status == nil {
		return
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		status(&cur.Status)
		_, err = pods.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("set status of pod %s: %v", name, err)
	}
}

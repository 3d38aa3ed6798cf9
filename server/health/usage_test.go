package health

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func requests(cpu, memory string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}}
}

func container(name, cpu, memory string) corev1.Container {
	return corev1.Container{Name: name, Resources: requests(cpu, memory)}
}

func sidecar(name, cpu, memory string) corev1.Container {
	always := corev1.ContainerRestartPolicyAlways
	c := container(name, cpu, memory)
	c.RestartPolicy = &always
	return c
}

func TestPodRequests(t *testing.T) {
	const mi = 1 << 20
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		want amount
	}{
		{name: "app containers add up",
			spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "100m", "64Mi"), container("b", "250m", "128Mi")}},
			want: amount{350, 192 * mi}},
		{name: "a container without requests adds nothing",
			spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "100m", "64Mi"), {Name: "b"}}},
			want: amount{100, 64 * mi}},
		{name: "an init container bigger than the app containers sets the request, per resource",
			spec: corev1.PodSpec{InitContainers: []corev1.Container{container("init", "2", "32Mi")},
				Containers: []corev1.Container{container("a", "100m", "64Mi")}},
			want: amount{2000, 64 * mi}},
		{name: "a sidecar adds to the app containers",
			spec: corev1.PodSpec{InitContainers: []corev1.Container{sidecar("proxy", "50m", "16Mi")},
				Containers: []corev1.Container{container("a", "100m", "64Mi")}},
			want: amount{150, 80 * mi}},
		{name: "an init container after a sidecar runs alongside it",
			spec: corev1.PodSpec{InitContainers: []corev1.Container{sidecar("proxy", "500m", "16Mi"), container("migrate", "1", "16Mi")},
				Containers: []corev1.Container{container("a", "100m", "64Mi")}},
			want: amount{1500, 80 * mi}},
		{name: "pod-level requests replace the containers' sum",
			spec: corev1.PodSpec{Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}},
				Containers: []corev1.Container{container("a", "100m", "64Mi")}},
			want: amount{3000, 64 * mi}},
		{name: "overhead is added",
			spec: corev1.PodSpec{Overhead: requests("10m", "1Mi").Requests,
				Containers: []corev1.Container{container("a", "100m", "64Mi")}},
			want: amount{110, 65 * mi}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := podRequests(corev1.Pod{Spec: tc.spec}); got != tc.want {
				t.Errorf("podRequests = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestRequestedCountsOnlyPodsHoldingANode(t *testing.T) {
	on := func(nodeName string, phase corev1.PodPhase) corev1.Pod {
		return corev1.Pod{Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{container("a", "1", "1Gi")}},
			Status: corev1.PodStatus{Phase: phase}}
	}
	pods := []corev1.Pod{
		on("n1", corev1.PodRunning), on("n1", corev1.PodPending), // counted
		on("n1", corev1.PodSucceeded), on("n1", corev1.PodFailed), on("", corev1.PodPending), // not
	}
	if got, want := requested(pods), (amount{2000, 2 << 30}); got != want {
		t.Errorf("requested = %+v, want %+v", got, want)
	}
}

func TestFractions(t *testing.T) {
	if got := fractions(amount{3000, 1 << 30}, amount{12000, 4 << 30}, UsageFromMetrics); got != (Usage{0.25, 0.25, UsageFromMetrics}) {
		t.Errorf("fractions = %+v, want a quarter of each from %s", got, UsageFromMetrics)
	}
	if got := fractions(amount{3000, 1 << 30}, amount{}, UsageFromRequests); got != (Usage{0, 0, UsageFromRequests}) {
		t.Errorf("fractions of zero allocatable = %+v, want 0 use", got)
	}
}

package fluxinstall

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDeploymentProblem(t *testing.T) {
	one := int32(1)
	dep := func(gen, observed int64, replicas, updated, availableN int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: gen}, Spec: appsv1.DeploymentSpec{Replicas: &one},
			Status: appsv1.DeploymentStatus{ObservedGeneration: observed, Replicas: replicas, UpdatedReplicas: updated,
				AvailableReplicas: availableN, Conditions: conds}}
	}
	availableTrue := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}
	cases := []struct {
		name string
		d    *appsv1.Deployment
		want string
	}{
		{"rolled out and available", dep(2, 2, 1, 1, 1, availableTrue), ""},
		{"new generation not yet observed", dep(3, 2, 1, 1, 1, availableTrue),
			"rollout not yet observed by the deployment controller"},
		{"no replica available", dep(1, 1, 1, 1, 0), "0/1 replicas available"},
		{"old replica still serving during a rollout", dep(2, 2, 2, 1, 1, availableTrue), "1 old replica(s) not yet replaced"},
		{"progress deadline exceeded", dep(1, 1, 1, 1, 0, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing,
			Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "x" has timed out progressing.`}),
			`0/1 replicas available: ProgressDeadlineExceeded: ReplicaSet "x" has timed out progressing.`},
		{"pods cannot be created", dep(1, 1, 0, 0, 0, appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure,
			Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: `pods "x-" is forbidden: exceeded quota`}),
			`0/1 replicas updated: 0/1 replicas available: FailedCreate: pods "x-" is forbidden: exceeded quota`},
		{"counts fine but not Available", dep(1, 1, 1, 1, 1), "condition Available is not True"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := deploymentProblem(tc.d); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPodProblem(t *testing.T) {
	waiting := func(reason, msg string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: "manager", State: corev1.ContainerState{
			Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}
	}
	cases := []struct {
		name   string
		status corev1.PodStatus
		node   string
		want   string
	}{
		{"ready", corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}, "w1", ""},
		{"unschedulable", corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
			Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."}}},
			"", "Unschedulable: 0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."},
		{"image pull back-off", corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{
			waiting("ImagePullBackOff", `Back-off pulling image "ghcr.io/fluxcd/source-controller:v1.9.5"`)}}, "w1",
			`container manager: ImagePullBackOff: Back-off pulling image "ghcr.io/fluxcd/source-controller:v1.9.5"`},
		{"crash loop", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			waiting("CrashLoopBackOff", "back-off 5m0s restarting failed container")}}, "w1",
			"container manager: CrashLoopBackOff: back-off 5m0s restarting failed container"},
		{"exited with an error", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "manager",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 2, Message: "flag provided but not defined"}}}}},
			"w1", "container manager: Error (exit code 2): flag provided but not defined"},
		{"running, readiness failing", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "manager",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}, "w1",
			"container manager: running, not ready (readiness probe failing)"},
		{"not yet scheduled", corev1.PodStatus{Phase: corev1.PodPending}, "", "Pending: not yet scheduled"},
		{"evicted", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "The node was low on resource: memory."}, "w1",
			"Failed: Evicted The node was low on resource: memory."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{NodeName: tc.node}, Status: tc.status}
			if got := podProblem(pod); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

package health

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// node is a node with the given conditions as written; readyNode adds
// Ready=True to them.
func node(name string, conds ...corev1.NodeCondition) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Conditions: conds}}
}

func cond(typ corev1.NodeConditionType, status corev1.ConditionStatus) corev1.NodeCondition {
	return corev1.NodeCondition{Type: typ, Status: status}
}

func readyNode(name string, trueConds ...corev1.NodeConditionType) corev1.Node {
	conds := []corev1.NodeCondition{cond(corev1.NodeReady, corev1.ConditionTrue)}
	for _, t := range trueConds {
		conds = append(conds, cond(t, corev1.ConditionTrue))
	}
	return node(name, conds...)
}

func notReadyNodes(n int) []corev1.Node {
	var out []corev1.Node
	for i := range n {
		out = append(out, node(fmt.Sprintf("n%02d", i), cond(corev1.NodeReady, corev1.ConditionFalse)))
	}
	return out
}

// pod is a running pod in namespace default with one container "main".
func pod(name string, edits ...func(*corev1.Pod)) corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/app:1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "main", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
	}
	for _, e := range edits {
		e(&p)
	}
	return p
}

func failed(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }

func crashLooping(restarts int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: "main", RestartCount: restarts,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}
	}
}

func restarted(p *corev1.Pod) { p.Status.ContainerStatuses[0].RestartCount = 1 }

func restartingPods(n int) []corev1.Pod {
	var out []corev1.Pod
	for i := range n {
		out = append(out, pod(fmt.Sprintf("p%02d", i), restarted))
	}
	return out
}

func healthy(names ...string) []Component {
	var out []Component
	for _, n := range names {
		out = append(out, Component{Name: n, Healthy: true})
	}
	return out
}

func unhealthy(c []Component, names ...string) []Component {
	for i := range c {
		for _, n := range names {
			if c[i].Name == n {
				c[i].Healthy, c[i].Message = false, n+" is down"
			}
		}
	}
	return c
}

// allComponents is a kubeadm control plane, every component healthy.
func allComponents() []Component {
	return healthy(ComponentAPIServer, ComponentEtcd, ComponentScheduler, ComponentControllerManager)
}

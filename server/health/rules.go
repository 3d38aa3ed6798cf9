package health

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Rules, each with the points it deducts.
const (
	// RuleNodeNotReady: −5 per node whose Ready condition is not True
	// (False, Unknown, or never reported).
	RuleNodeNotReady = "node-not-ready"
	// RuleNodeMemoryPressure: −3 per node with MemoryPressure True.
	RuleNodeMemoryPressure = "node-memory-pressure"
	// RuleNodeDiskPressure: −4 per node with DiskPressure True.
	RuleNodeDiskPressure = "node-disk-pressure"
	// RuleNodePIDPressure: −2 per node with PIDPressure True.
	RuleNodePIDPressure = "node-pid-pressure"
	// RuleNodeNetworkUnavailable: −6 per node with NetworkUnavailable True.
	RuleNodeNetworkUnavailable = "node-network-unavailable"
	// RulePodFailed: −2 per pod in phase Failed.
	RulePodFailed = "pod-failed"
	// RulePodCrashLooping: −2.5 per pod with a container (init containers
	// included) waiting in CrashLoopBackOff.
	RulePodCrashLooping = "pod-crash-looping"
	// RulePodsRestarting: −5 once when more than 10 pods have a container
	// (init containers included) with a restart count above 0.
	RulePodsRestarting = "pods-restarting"
	// RuleControlPlaneDegraded: −30 once when any control-plane component
	// is unhealthy, −15 instead when kube-apiserver is the only one.
	RuleControlPlaneDegraded = "control-plane-degraded"
	// RuleComponentUnhealthy: −8 per unhealthy control-plane component, on
	// top of RuleControlPlaneDegraded.
	RuleComponentUnhealthy = "control-plane-component-unhealthy"
	// RuleCPUHigh: −5 when 80% or more (but less than 95%) of allocatable
	// CPU is in use.
	RuleCPUHigh = "cpu-high"
	// RuleCPUCritical: −10 when 95% or more of allocatable CPU is in use.
	RuleCPUCritical = "cpu-critical"
	// RuleMemoryHigh: −5 when 80% or more (but less than 95%) of
	// allocatable memory is in use.
	RuleMemoryHigh = "memory-high"
	// RuleMemoryCritical: −10 when 95% or more of allocatable memory is in
	// use.
	RuleMemoryCritical = "memory-critical"
)

// Control-plane component names.
const (
	ComponentAPIServer         = "kube-apiserver"
	ComponentEtcd              = "etcd"
	ComponentScheduler         = "kube-scheduler"
	ComponentControllerManager = "kube-controller-manager"
)

// restartingPodsAllowed is how many restarting pods cost nothing yet.
const restartingPodsAllowed = 10

var nodeConditionRules = []struct {
	condition corev1.NodeConditionType
	rule      string
	penalty   float64
}{
	{corev1.NodeMemoryPressure, RuleNodeMemoryPressure, 3},
	{corev1.NodeDiskPressure, RuleNodeDiskPressure, 4},
	{corev1.NodePIDPressure, RuleNodePIDPressure, 2},
	{corev1.NodeNetworkUnavailable, RuleNodeNetworkUnavailable, 6},
}

func nodeFindings(nodes []corev1.Node) []Finding {
	var out []Finding
	for _, n := range sortedBy(nodes, func(n corev1.Node) string { return n.Name }) {
		if ready := nodeCondition(n, corev1.NodeReady); ready == nil || ready.Status != corev1.ConditionTrue {
			out = append(out, Finding{RuleNodeNotReady, n.Name, 5, conditionDetail(corev1.NodeReady, ready)})
		}
		for _, r := range nodeConditionRules {
			if c := nodeCondition(n, r.condition); c != nil && c.Status == corev1.ConditionTrue {
				out = append(out, Finding{r.rule, n.Name, r.penalty, conditionDetail(r.condition, c)})
			}
		}
	}
	return out
}

func nodeCondition(n corev1.Node, typ corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == typ {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

func conditionDetail(typ corev1.NodeConditionType, c *corev1.NodeCondition) string {
	if c == nil {
		return fmt.Sprintf("no %s condition reported", typ)
	}
	d := fmt.Sprintf("%s is %s", typ, c.Status)
	if c.Reason != "" {
		d += " (" + c.Reason + ")"
	}
	if c.Message != "" {
		d += ": " + c.Message
	}
	return d
}

func podFindings(pods []corev1.Pod) []Finding {
	var out []Finding
	restarting := 0
	for _, p := range sortedBy(pods, podKey) {
		if p.Status.Phase == corev1.PodFailed {
			out = append(out, Finding{RulePodFailed, podKey(p), 2, failedDetail(p)})
		}
		statuses := containerStatuses(p)
		for _, s := range statuses {
			if s.State.Waiting != nil && s.State.Waiting.Reason == "CrashLoopBackOff" {
				out = append(out, Finding{RulePodCrashLooping, podKey(p), 2.5,
					fmt.Sprintf("container %s is in CrashLoopBackOff after %d restarts", s.Name, s.RestartCount)})
				break
			}
		}
		for _, s := range statuses {
			if s.RestartCount > 0 {
				restarting++
				break
			}
		}
	}
	if restarting > restartingPodsAllowed {
		out = append(out, Finding{RulePodsRestarting, "pods", 5,
			fmt.Sprintf("%d pods have restarted containers (more than %d)", restarting, restartingPodsAllowed)})
	}
	return out
}

func podKey(p corev1.Pod) string { return p.Namespace + "/" + p.Name }

// containerStatuses lists the statuses of a pod's init and app containers.
func containerStatuses(p corev1.Pod) []corev1.ContainerStatus {
	return append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
}

func failedDetail(p corev1.Pod) string {
	d := "phase Failed"
	if p.Status.Reason != "" {
		d += " (" + p.Status.Reason + ")"
	}
	if p.Status.Message != "" {
		d += ": " + p.Status.Message
	}
	return d
}

// controlPlaneFindings judges the components it is given; a component a
// managed control plane hides is simply not among them.
func controlPlaneFindings(components []Component) []Finding {
	var unhealthy []Component
	var names []string
	for _, c := range sortedBy(components, func(c Component) string { return c.Name }) {
		if !c.Healthy {
			unhealthy = append(unhealthy, c)
			names = append(names, c.Name)
		}
	}
	if len(unhealthy) == 0 {
		return nil
	}
	penalty := 30.0
	if len(unhealthy) == 1 && unhealthy[0].Name == ComponentAPIServer {
		penalty = 15
	}
	out := []Finding{{RuleControlPlaneDegraded, "control-plane", penalty, "unhealthy: " + strings.Join(names, ", ")}}
	for _, c := range unhealthy {
		out = append(out, Finding{RuleComponentUnhealthy, c.Name, 8, c.Message})
	}
	return out
}

func usageFindings(u Usage) []Finding {
	out := usageFinding("cpu", u.CPUFraction, u.Source, RuleCPUHigh, RuleCPUCritical)
	return append(out, usageFinding("memory", u.MemoryFraction, u.Source, RuleMemoryHigh, RuleMemoryCritical)...)
}

func usageFinding(resource string, fraction float64, source, high, critical string) []Finding {
	detail := fmt.Sprintf("%.2f%% of allocatable %s in use (by %s)", percent(fraction), resource, source)
	switch {
	case fraction >= 0.95:
		return []Finding{{critical, resource, 10, detail}}
	case fraction >= 0.80:
		return []Finding{{high, resource, 5, detail}}
	}
	return nil
}

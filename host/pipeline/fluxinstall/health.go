package fluxinstall

import (
	"context"
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ControllerSelector selects the Flux controller Deployments of the flux2
// chart. The chart labels them app.kubernetes.io/part-of=flux; its
// app.kubernetes.io/instance label holds the release's namespace, not the
// release's name.
const ControllerSelector = "app.kubernetes.io/part-of=flux"

// Report says whether Flux's controllers are available.
type Report struct {
	// Ready is true when every controller Deployment has rolled out and all
	// its replicas are available.
	Ready bool
	// NotReady has one line per controller that is not, naming it and why,
	// e.g. "source-controller: 0/1 replicas available: pod
	// source-controller-7d9f-x2v: Unschedulable: 0/1 nodes are available: ...".
	NotReady []string
}

// Health reports on the Flux controller Deployments in namespace. An error
// means the cluster could not be asked; an unhealthy Flux is a Report.
func Health(ctx context.Context, c kubernetes.Interface, namespace string) (Report, error) {
	deps, err := c.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{LabelSelector: ControllerSelector})
	if err != nil {
		return Report{}, fmt.Errorf("list Flux controller deployments in namespace %s: %w", namespace, err)
	}
	if len(deps.Items) == 0 {
		return Report{NotReady: []string{fmt.Sprintf("no Flux controller deployments (label %s) in namespace %s: is Flux installed there?",
			ControllerSelector, namespace)}}, nil
	}
	sort.Slice(deps.Items, func(i, j int) bool { return deps.Items[i].Name < deps.Items[j].Name })
	var report Report
	for i := range deps.Items {
		d := &deps.Items[i]
		problem := deploymentProblem(d)
		if problem == "" {
			continue
		}
		why, err := podsProblem(ctx, c, d)
		if err != nil {
			return Report{}, err
		}
		report.NotReady = append(report.NotReady, joinReasons(d.Name+": "+problem, why))
	}
	report.Ready = len(report.NotReady) == 0
	return report, nil
}

// deploymentProblem says why d has not rolled out with all replicas
// available, or "" when it has.
func deploymentProblem(d *appsv1.Deployment) string {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	var reasons []string
	if d.Status.ObservedGeneration < d.Generation {
		reasons = append(reasons, "rollout not yet observed by the deployment controller")
	}
	if d.Status.UpdatedReplicas < want {
		reasons = append(reasons, fmt.Sprintf("%d/%d replicas updated", d.Status.UpdatedReplicas, want))
	}
	if d.Status.AvailableReplicas < want {
		reasons = append(reasons, fmt.Sprintf("%d/%d replicas available", d.Status.AvailableReplicas, want))
	}
	if old := d.Status.Replicas - d.Status.UpdatedReplicas; old > 0 {
		reasons = append(reasons, fmt.Sprintf("%d old replica(s) not yet replaced", old))
	}
	for _, c := range d.Status.Conditions {
		failed := (c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse) ||
			(c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue)
		if failed {
			reasons = append(reasons, conditionText(c.Reason, c.Message))
		}
	}
	if len(reasons) == 0 && !available(d) {
		reasons = append(reasons, "condition Available is not True")
	}
	return strings.Join(reasons, ": ")
}

func available(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podsProblem says why the pods of d are not ready, one "pod <name>: ..."
// entry per pod that is not.
func podsProblem(ctx context.Context, c kubernetes.Interface, d *appsv1.Deployment) ([]string, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("selector of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	pods, err := c.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("list pods of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
	var out []string
	for i := range pods.Items {
		if why := podProblem(&pods.Items[i]); why != "" {
			out = append(out, "pod "+pods.Items[i].Name+": "+why)
		}
	}
	return out, nil
}

// podProblem says why pod is not ready, or "" when it is or is going away.
func podProblem(pod *corev1.Pod) string {
	if pod.DeletionTimestamp != nil || podReady(pod) {
		return ""
	}
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return conditionText(string(pod.Status.Phase), pod.Status.Reason+" "+pod.Status.Message)
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return conditionText(c.Reason, c.Message)
		}
	}
	statuses := append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...)
	var reasons []string
	for _, s := range statuses {
		switch {
		case s.State.Waiting != nil && s.State.Waiting.Reason != "":
			reasons = append(reasons, "container "+s.Name+": "+conditionText(s.State.Waiting.Reason, s.State.Waiting.Message))
		case s.State.Terminated != nil && s.State.Terminated.ExitCode != 0:
			t := s.State.Terminated
			reasons = append(reasons, "container "+s.Name+": "+
				conditionText(fmt.Sprintf("%s (exit code %d)", t.Reason, t.ExitCode), t.Message))
		case s.State.Running != nil && !s.Ready:
			reasons = append(reasons, "container "+s.Name+": running, not ready (readiness probe failing)")
		}
	}
	if len(reasons) > 0 {
		return strings.Join(reasons, "; ")
	}
	if pod.Status.Phase == corev1.PodPending && pod.Spec.NodeName == "" {
		return "Pending: not yet scheduled"
	}
	return "phase " + string(pod.Status.Phase) + ": not ready"
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// conditionText is "Reason: message", leaving out whichever is empty.
func conditionText(reason, message string) string {
	reason, message = strings.TrimSpace(reason), strings.TrimSpace(message)
	switch {
	case reason == "":
		return message
	case message == "":
		return reason
	}
	return reason + ": " + message
}

func joinReasons(head string, rest []string) string {
	if len(rest) == 0 {
		return head
	}
	return head + ": " + strings.Join(rest, "; ")
}

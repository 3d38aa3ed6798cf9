package health

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// controlPlane reports the components that can be seen from inside the
// cluster: kube-apiserver and etcd from the API server's /readyz checks,
// kube-scheduler and kube-controller-manager from their static pods, found
// among pods.
func controlPlane(ctx context.Context, cs kubernetes.Interface, pods []corev1.Pod) ([]Component, error) {
	components, err := readyz(ctx, cs)
	if err != nil {
		return nil, err
	}
	return append(components, staticPodComponents(pods)...), nil
}

// readyz asks the API server for its verbose readiness checks. Only a
// cancelled ctx is an error: an API server that does not answer, or answers
// without checks, is itself the finding.
func readyz(ctx context.Context, cs kubernetes.Interface) ([]Component, error) {
	rc := cs.Discovery().RESTClient()
	if rc == nil { // a fake clientset: nothing to ask
		return nil, nil
	}
	body, err := rc.Get().AbsPath("/readyz").Param("verbose", "true").DoRaw(ctx)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("read /readyz: %w", ctx.Err())
	}
	if checks := parseReadyz(string(body)); len(checks) > 0 {
		return judgeReadyz(checks), nil
	}
	if err != nil {
		return []Component{{Name: ComponentAPIServer, Message: "/readyz failed: " + err.Error()}}, nil
	}
	return []Component{{Name: ComponentAPIServer, Healthy: true, Message: "/readyz ok"}}, nil
}

// readyzCheck is one line of verbose /readyz output: "[+]ping ok" or
// "[-]etcd failed: reason withheld".
type readyzCheck struct {
	name string
	ok   bool
	line string
}

func parseReadyz(body string) []readyzCheck {
	var checks []readyzCheck
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		ok := strings.HasPrefix(line, "[+]")
		if !ok && !strings.HasPrefix(line, "[-]") {
			continue
		}
		name, _, _ := strings.Cut(line[3:], " ")
		checks = append(checks, readyzCheck{name: name, ok: ok, line: line})
	}
	return checks
}

// judgeReadyz attributes the etcd checks ("etcd", "etcd-readiness") to
// etcd and every other check to kube-apiserver, so an etcd outage costs
// etcd's penalty without also marking the API server unhealthy. etcd is
// reported only when the output has an etcd check.
func judgeReadyz(checks []readyzCheck) []Component {
	var apiFailed, etcdFailed []string
	sawEtcd := false
	for _, c := range checks {
		isEtcd := c.name == "etcd" || strings.HasPrefix(c.name, "etcd-")
		sawEtcd = sawEtcd || isEtcd
		switch {
		case c.ok:
		case isEtcd:
			etcdFailed = append(etcdFailed, c.line)
		default:
			apiFailed = append(apiFailed, c.line)
		}
	}
	out := []Component{judged(ComponentAPIServer, apiFailed)}
	if sawEtcd {
		out = append(out, judged(ComponentEtcd, etcdFailed))
	}
	return out
}

func judged(name string, failed []string) Component {
	if len(failed) == 0 {
		return Component{Name: name, Healthy: true, Message: "/readyz checks pass"}
	}
	return Component{Name: name, Message: "/readyz: " + strings.Join(failed, "; ")}
}

// staticPodComponents judges kube-scheduler and kube-controller-manager by
// their kubeadm static pods in kube-system (label component=<name>): healthy
// when every such pod is Ready. A component without pods is not reported,
// since managed control planes (EKS, GKE, AKS) do not show them.
func staticPodComponents(pods []corev1.Pod) []Component {
	var out []Component
	for _, name := range []string{ComponentScheduler, ComponentControllerManager} {
		var total int
		var notReady []string
		for _, p := range sortedBy(pods, podKey) {
			if p.Namespace != metav1.NamespaceSystem || p.Labels["component"] != name {
				continue
			}
			total++
			if !podReady(p) {
				notReady = append(notReady, fmt.Sprintf("%s (phase %s)", p.Name, p.Status.Phase))
			}
		}
		switch {
		case total == 0:
		case len(notReady) == 0:
			out = append(out, Component{Name: name, Healthy: true, Message: fmt.Sprintf("%d of %d pods ready", total, total)})
		default:
			out = append(out, Component{Name: name, Message: fmt.Sprintf("%d of %d pods ready; not ready: %s",
				total-len(notReady), total, strings.Join(notReady, ", "))})
		}
	}
	return out
}

func podReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

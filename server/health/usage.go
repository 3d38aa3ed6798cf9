package health

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

const metricsGroupVersion = "metrics.k8s.io/v1beta1"

// amount is CPU in millicores and memory in bytes.
type amount struct{ cpu, memory int64 }

func (a *amount) add(l corev1.ResourceList) {
	a.cpu += l.Cpu().MilliValue()
	a.memory += l.Memory().Value()
}

func (a amount) plus(b amount) amount { return amount{a.cpu + b.cpu, a.memory + b.memory} }

// usage measures use from metrics.k8s.io when the cluster serves it, else
// from the requests of the pods running on nodes. Only a cancelled ctx is
// an error: metrics that cannot be read fall back to requests.
func usage(ctx context.Context, cs kubernetes.Interface, nodes []corev1.Node, pods []corev1.Pod) (Usage, error) {
	var alloc amount
	for _, n := range nodes {
		alloc.add(n.Status.Allocatable)
	}
	used, err := metricsUsage(ctx, cs)
	switch {
	case err == nil:
		return fractions(used, alloc, UsageFromMetrics), nil
	case ctx.Err() != nil:
		return Usage{}, fmt.Errorf("read node metrics: %w", ctx.Err())
	case !apierrors.IsNotFound(err):
		slog.WarnContext(ctx, "node metrics unreadable, using pod requests instead", "err", err)
	}
	return fractions(requested(pods), alloc, UsageFromRequests), nil
}

// metricsUsage sums the usage of every NodeMetrics; a NotFound error means
// the cluster does not serve metrics.k8s.io.
func metricsUsage(ctx context.Context, cs kubernetes.Interface) (amount, error) {
	if _, err := discovery.ToServerResourcesInterfaceWithContext(cs.Discovery()).
		ServerResourcesForGroupVersionWithContext(ctx, metricsGroupVersion); err != nil {
		return amount{}, err
	}
	rc := cs.Discovery().RESTClient()
	if rc == nil {
		return amount{}, fmt.Errorf("no REST client to read %s", metricsGroupVersion)
	}
	body, err := rc.Get().AbsPath("/apis/"+metricsGroupVersion+"/nodes").
		SetHeader("Accept", "application/json").DoRaw(ctx)
	if err != nil {
		return amount{}, fmt.Errorf("list node metrics: %w", err)
	}
	var list metricsv1beta1.NodeMetricsList
	if err := json.Unmarshal(body, &list); err != nil {
		return amount{}, fmt.Errorf("decode node metrics: %w", err)
	}
	var used amount
	for _, m := range list.Items {
		used.add(m.Usage)
	}
	return used, nil
}

func fractions(used, alloc amount, source string) Usage {
	u := Usage{Source: source}
	if alloc.cpu > 0 {
		u.CPUFraction = float64(used.cpu) / float64(alloc.cpu)
	}
	if alloc.memory > 0 {
		u.MemoryFraction = float64(used.memory) / float64(alloc.memory)
	}
	return u
}

// requested sums the effective requests of the pods bound to a node and
// not terminated (neither Succeeded nor Failed); pending pods not yet
// scheduled hold nothing.
func requested(pods []corev1.Pod) amount {
	var sum amount
	for _, p := range pods {
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		sum = sum.plus(podRequests(p))
	}
	return sum
}

// podRequests is a pod's effective request as the scheduler counts it: the
// larger of its app containers plus sidecars (restartable init containers)
// and its peak during initialisation (each init container plus the sidecars
// started before it); pod-level requests replace that where set; overhead
// is added.
func podRequests(p corev1.Pod) amount {
	var apps, sidecars, initPeak amount
	for _, c := range p.Spec.Containers {
		apps.add(c.Resources.Requests)
	}
	for _, c := range p.Spec.InitContainers {
		var step amount
		step.add(c.Resources.Requests)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars.add(c.Resources.Requests)
			step = sidecars
		} else {
			step = step.plus(sidecars)
		}
		initPeak.cpu = max(initPeak.cpu, step.cpu)
		initPeak.memory = max(initPeak.memory, step.memory)
	}
	running := apps.plus(sidecars)
	r := amount{cpu: max(running.cpu, initPeak.cpu), memory: max(running.memory, initPeak.memory)}
	if p.Spec.Resources != nil {
		if q, ok := p.Spec.Resources.Requests[corev1.ResourceCPU]; ok {
			r.cpu = q.MilliValue()
		}
		if q, ok := p.Spec.Resources.Requests[corev1.ResourceMemory]; ok {
			r.memory = q.Value()
		}
	}
	r.add(p.Spec.Overhead)
	return r
}

package controller

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// defaultReleaseTimeout bounds how long a teardown waits for the target's
// cloud controller to delete the load balancers of its LoadBalancer
// Services (cloud load balancers take minutes to go).
const defaultReleaseTimeout = 10 * time.Minute

// releaseLoadBalancers runs before a teardown's Destroy. A LoadBalancer
// Service makes a cloud load balancer (on AWS an NLB with network
// interfaces in the cluster's subnets) that the provider's Terraform does
// not know: left in place it blocks deleting the subnets and keeps
// costing. So the teardown first deletes every LoadBalancer Service on the
// target and waits for the cloud controller to release them (it holds
// each Service with a finalizer until its load balancer is gone). A
// step error means the teardown comes back later; a target that
// cannot be reached, or load balancers still there after the timeout, do
// not stop the teardown: a Warning event names what may be left. A nil
// error lets the Destroy go ahead.
func (r *Reconciler) releaseLoadBalancers(ctx context.Context, hc *v1.HostCluster, req string) error {
	kubeconfig := r.anyKubeconfig(ctx, hc, []string{v1.KubeconfigSecretName(hc.Name)})
	if kubeconfig == nil {
		return nil // never reached Ready: Kubernetes made nothing in the cloud
	}
	since, err := time.Parse(time.RFC3339Nano, req)
	if err != nil {
		since = time.Now()
	}
	timeout := r.ReleaseTimeout
	if timeout == 0 {
		timeout = defaultReleaseTimeout
	}
	pending, err := deleteLoadBalancerServices(ctx, kubeconfig)
	elapsed := time.Since(since)
	switch {
	case err != nil && elapsed < r.CleanupTimeout:
		return tearingDown(hc, step.Retry(r.PollInterval, "tearing down: cannot reach the cluster to delete its LoadBalancer Services "+
			"(destroying without it after %s): %v", r.CleanupTimeout, err))
	case err != nil:
		r.Recorder.Eventf(hc, corev1.EventTypeWarning, "LoadBalancersNotReleased",
			"could not reach the cluster to delete its LoadBalancer Services (%v); any cloud load balancer they made is left: delete it in the cloud console", err)
	case len(pending) > 0 && elapsed < timeout:
		return tearingDown(hc, step.Wait(r.PollInterval, "tearing down: waiting for the cloud to delete the load balancers of %d LoadBalancer Service(s) (%s) "+
			"before destroying the network (destroying anyway after %s)", len(pending), strings.Join(pending, ", "), timeout))
	case len(pending) > 0:
		r.Recorder.Eventf(hc, corev1.EventTypeWarning, "LoadBalancersNotReleased",
			"the load balancers of %s were not deleted within %s; destroying anyway: delete what is left of them in the cloud console",
			strings.Join(pending, ", "), timeout)
	}
	return nil
}

// deleteLoadBalancerServices deletes every Service of type LoadBalancer
// on the cluster and returns those still there as "namespace/name".
func deleteLoadBalancerServices(ctx context.Context, kubeconfig []byte) ([]string, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	list, err := core.Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list Services: %w", err)
	}
	var pending []string
	for _, s := range list.Items {
		if s.Spec.Type != corev1.ServiceTypeLoadBalancer {
			continue
		}
		if s.DeletionTimestamp == nil {
			err := core.Services(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("delete Service %s/%s: %w", s.Namespace, s.Name, err)
			}
		}
		pending = append(pending, s.Namespace+"/"+s.Name)
	}
	return pending, nil
}

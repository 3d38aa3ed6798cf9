package pipeline

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// The ingress-nginx controller's Service the tree's HelmRelease creates.
const (
	ingressNamespace = "ingress-nginx"
	ingressService   = "ingress-nginx-controller"
)

// dnsAdvice says which DNS records the user must create for the installed
// KubeOpera's hosts, read from the ingress controller's Service on the
// target: its load balancer's address, or that it has none yet.
func (p *Pipeline) dnsAdvice(ctx context.Context, hc *v1.HostCluster, t *target) string {
	params := p.params(hc)
	hosts := params.DashboardHost() + " and " + params.APIHost()
	var svc corev1.Service
	err := t.client.Get(ctx, client.ObjectKey{Namespace: ingressNamespace, Name: ingressService}, &svc)
	if err != nil {
		return fmt.Sprintf("to reach it, point DNS for %s at the ingress-nginx load balancer (Service %s/%s: %v)",
			hosts, ingressNamespace, ingressService, err)
	}
	var addrs []string
	kind := "A"
	for _, in := range svc.Status.LoadBalancer.Ingress {
		switch {
		case in.Hostname != "":
			addrs, kind = append(addrs, in.Hostname), "CNAME"
		case in.IP != "":
			addrs = append(addrs, in.IP)
		}
	}
	if len(addrs) == 0 {
		return fmt.Sprintf("to reach it, point DNS for %s at the ingress-nginx load balancer once Service %s/%s has an external address (it has none yet)",
			hosts, ingressNamespace, ingressService)
	}
	return fmt.Sprintf("create DNS %s records for %s pointing at %s", kind, hosts, strings.Join(addrs, ", "))
}

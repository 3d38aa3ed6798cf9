package pipeline

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
)

// The ingress-nginx controller's Service the tree's HelmRelease creates
// for a cluster that asked for ingress-nginx.
const (
	ingressNamespace = "ingress-nginx"
	ingressService   = "ingress-nginx-controller"
)

// dnsAdvice says which DNS records the user must create for the installed
// KubeOpera's hosts, read on the target from the tree's Gateway (its
// status addresses, which Envoy Gateway fills from its load balancer) or,
// with ingress-nginx, from the controller's Service: the address, or that
// there is none yet.
func (p *Pipeline) dnsAdvice(ctx context.Context, hc *v1.HostCluster, t *target) string {
	params := p.params(hc)
	hosts := params.DashboardHost() + " and " + params.APIHost()
	var (
		where string
		addrs []address
		err   error
	)
	if params.IngressNginx {
		where = fmt.Sprintf("the ingress-nginx load balancer (Service %s/%s)", ingressNamespace, ingressService)
		addrs, err = serviceAddresses(ctx, t.client)
	} else {
		where = fmt.Sprintf("Gateway %s/%s", gitops.NamespaceSystem, gitops.GatewayName)
		addrs, err = gatewayAddresses(ctx, t.client)
	}
	switch {
	case apierrors.IsNotFound(err):
		// The tls layer (Gateway) or infrastructure (ingress-nginx) that
		// makes it is applied after apps: not yet, rather than an error.
		return fmt.Sprintf("to reach it, point DNS for %s at %s once Flux has created it (it does not exist yet)", hosts, where)
	case err != nil:
		return fmt.Sprintf("to reach it, point DNS for %s at %s (%v)", hosts, where, err)
	}
	if len(addrs) == 0 {
		return fmt.Sprintf("to reach it, point DNS for %s at %s once it has an external address (it has none yet)", hosts, where)
	}
	kind := "A"
	var values []string
	for _, a := range addrs {
		if a.hostname {
			kind = "CNAME"
		}
		values = append(values, a.value)
	}
	return fmt.Sprintf("create DNS %s records for %s pointing at %s (%s)", kind, hosts, strings.Join(values, ", "), where)
}

// address is a load balancer's IP address or host name.
type address struct {
	value    string
	hostname bool
}

func gatewayAddresses(ctx context.Context, c client.Client) ([]address, error) {
	var gw gatewayv1.Gateway
	if err := c.Get(ctx, client.ObjectKey{Namespace: gitops.NamespaceSystem, Name: gitops.GatewayName}, &gw); err != nil {
		return nil, err
	}
	var out []address
	for _, a := range gw.Status.Addresses {
		if a.Value == "" {
			continue
		}
		host := a.Type != nil && *a.Type == gatewayv1.HostnameAddressType
		out = append(out, address{a.Value, host})
	}
	return out, nil
}

func serviceAddresses(ctx context.Context, c client.Client) ([]address, error) {
	var svc corev1.Service
	if err := c.Get(ctx, client.ObjectKey{Namespace: ingressNamespace, Name: ingressService}, &svc); err != nil {
		return nil, err
	}
	var out []address
	for _, in := range svc.Status.LoadBalancer.Ingress {
		switch {
		case in.Hostname != "":
			out = append(out, address{in.Hostname, true})
		case in.IP != "":
			out = append(out, address{in.IP, false})
		}
	}
	return out, nil
}

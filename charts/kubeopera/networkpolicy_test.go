package kubeopera

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

const dns = "pods k8s-app=kube-dns in namespaces kubernetes.io/metadata.name=kube-system"

// policies returns the rendered NetworkPolicies by name.
func policies(t *testing.T, objs []*unstructured.Unstructured) map[string]*networkingv1.NetworkPolicy {
	t.Helper()
	out := map[string]*networkingv1.NetworkPolicy{}
	for _, o := range objs {
		if o.GetKind() != "NetworkPolicy" {
			continue
		}
		var p networkingv1.NetworkPolicy
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &p); err != nil {
			t.Fatal(err)
		}
		out[p.Name] = &p
	}
	return out
}

// egress lists where a policy lets its pods send, one "peer protocol/port"
// a line, sorted and without repeats; a rule without peers or ports says
// so, since it opens every address or port.
func egress(p *networkingv1.NetworkPolicy) []string {
	var out []string
	for _, r := range p.Spec.Egress {
		if len(r.To) == 0 {
			out = append(out, "every address")
		}
		for _, to := range r.To {
			if len(r.Ports) == 0 {
				out = append(out, peer(to)+" every port")
			}
			for _, port := range r.Ports {
				out = append(out, fmt.Sprintf("%s %s/%s", peer(to), *port.Protocol, port.Port))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func peer(p networkingv1.NetworkPolicyPeer) string {
	var s []string
	if p.IPBlock != nil {
		s = append(s, p.IPBlock.CIDR)
	}
	if p.PodSelector != nil {
		s = append(s, "pods "+metav1.FormatLabelSelector(p.PodSelector))
	}
	if p.NamespaceSelector != nil {
		s = append(s, "in namespaces "+metav1.FormatLabelSelector(p.NamespaceSelector))
	}
	return strings.Join(s, " ")
}

func dest(cidr string, ports ...int) map[string]any {
	return map[string]any{"cidrs": []any{cidr}, "ports": toAny(ports)}
}

func toAny(ports []int) []any {
	out := make([]any, len(ports))
	for i, p := range ports {
		out[i] = p
	}
	return out
}

func withNetworkPolicy(np map[string]any, more map[string]any) map[string]any {
	v := required()
	v["networkPolicy"] = np
	for k, x := range more {
		v[k] = x
	}
	return v
}

// Each component sends only to the destinations its work needs, each
// where its value says: the controller to the git server and the chart
// repository, the server to the OpenID Provider when single sign-on is on.
func TestChartNetworkPoliciesAllowWhatEachComponentReaches(t *testing.T) {
	apart := map[string]any{"kubernetesAPI": dest("10.0.0.1/32", 6443), "database": dest("10.0.0.2/32", 5432),
		"targets": dest("10.0.0.3/32", 6443), "providerAPIs": dest("10.0.0.4/32", 443), "git": dest("10.0.0.5/32", 22),
		"chartRepository": dest("10.0.0.6/32", 443), "sso": dest("10.0.0.7/32", 443)}
	sso := map[string]any{"sso": map[string]any{"issuerURL": "https://dex.example.com", "clientID": "kubeopera"}}
	both := []string{"10.0.0.1/32 TCP/6443", "10.0.0.2/32 TCP/5432", "10.0.0.3/32 TCP/6443", "10.0.0.4/32 TCP/443",
		dns + " TCP/53", dns + " UDP/53"}
	for name, tc := range map[string]struct {
		values             map[string]any
		server, controller []string
	}{
		"defaults: DNS, and every address on the API server, PostgreSQL and HTTPS ports": {
			values:     required(),
			server:     []string{"0.0.0.0/0 TCP/443", "0.0.0.0/0 TCP/5432", "0.0.0.0/0 TCP/6443", dns + " TCP/53", dns + " UDP/53"},
			controller: []string{"0.0.0.0/0 TCP/443", "0.0.0.0/0 TCP/5432", "0.0.0.0/0 TCP/6443", dns + " TCP/53", dns + " UDP/53"},
		},
		"each destination where its value says; the OpenID Provider only with single sign-on": {
			values:     withNetworkPolicy(apart, nil),
			server:     both,
			controller: append(slices.Clone(both), "10.0.0.5/32 TCP/22", "10.0.0.6/32 TCP/443"),
		},
		"single sign-on opens the OpenID Provider to the server": {
			values:     withNetworkPolicy(apart, map[string]any{"server": sso}),
			server:     append(slices.Clone(both), "10.0.0.7/32 TCP/443"),
			controller: append(slices.Clone(both), "10.0.0.5/32 TCP/22", "10.0.0.6/32 TCP/443"),
		},
		"PostgreSQL in the cluster by its pods, and no address for it": {
			values: withNetworkPolicy(map[string]any{"kubernetesAPI": dest("10.0.0.1/32", 6443),
				"database": map[string]any{"podSelector": map[string]any{"app": "postgres"},
					"namespaceSelector": map[string]any{"kubernetes.io/metadata.name": "data"}, "ports": []any{5432}},
				"targets": map[string]any{"cidrs": []any{}}, "providerAPIs": map[string]any{"cidrs": []any{}},
				"git": map[string]any{"cidrs": []any{}}, "chartRepository": map[string]any{"cidrs": []any{}}}, nil),
			server: []string{"10.0.0.1/32 TCP/6443", dns + " TCP/53", dns + " UDP/53",
				"pods app=postgres in namespaces kubernetes.io/metadata.name=data TCP/5432"},
			controller: []string{"10.0.0.1/32 TCP/6443", dns + " TCP/53", dns + " UDP/53",
				"pods app=postgres in namespaces kubernetes.io/metadata.name=data TCP/5432"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			ps := policies(t, mustRender(t, tc.values))
			for pod, want := range map[string][]string{"kubeopera-server": tc.server, "kubeopera-controller": tc.controller} {
				p := ps[pod]
				if p == nil {
					t.Fatalf("no NetworkPolicy %s", pod)
				}
				slices.Sort(want)
				if got := egress(p); !slices.Equal(got, want) {
					t.Errorf("%s egress:\n  %s\nwant\n  %s", pod, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
				}
				if !slices.Equal(p.Spec.PolicyTypes, []networkingv1.PolicyType{"Ingress", "Egress"}) ||
					p.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"] != pod {
					t.Errorf("%s selects %v for %v, want its own pods for ingress and egress", pod, p.Spec.PodSelector, p.Spec.PolicyTypes)
				}
			}
		})
	}
}

// The server takes traffic on its HTTP port only, the controller on its
// metrics port only, from every source unless the values name them.
func TestChartNetworkPoliciesAdmitOnlyTheServedPorts(t *testing.T) {
	gateway := []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "gateway"}}}}
	for name, tc := range map[string]struct {
		values   map[string]any
		wantFrom int
	}{
		"every source":       {required(), 0},
		"the gateway's pods": {withNetworkPolicy(map[string]any{"serverFrom": gateway, "metricsFrom": gateway}, nil), 1},
	} {
		ps := policies(t, mustRender(t, tc.values))
		for pod, port := range map[string]string{"kubeopera-server": "http", "kubeopera-controller": "metrics"} {
			in := ps[pod].Spec.Ingress
			if len(in) != 1 || len(in[0].Ports) != 1 || in[0].Ports[0].Port.String() != port || len(in[0].From) != tc.wantFrom {
				t.Errorf("%s: %s ingress %+v, want port %s from %d peers", name, pod, in, port, tc.wantFrom)
			}
		}
	}
}

// Turned off, no NetworkPolicy renders; a destination that is not an
// address with its prefix length, or a port out of range, is refused.
func TestChartNetworkPolicyValues(t *testing.T) {
	if n := kinds(mustRender(t, withNetworkPolicy(map[string]any{"enabled": false}, nil)))["NetworkPolicy"]; n != 0 {
		t.Errorf("networkPolicy.enabled=false rendered %d NetworkPolicies", n)
	}
	c := loadChart(t)
	for name, np := range map[string]map[string]any{
		"a cidr without its prefix length": {"targets": map[string]any{"cidrs": []any{"10.0.0.0"}}},
		"port 0":                           {"database": map[string]any{"ports": []any{0}}},
		"an unknown destination":           {"registry": dest("10.0.0.0/8", 443)},
	} {
		if _, err := render(t, c, namespace, withNetworkPolicy(np, nil)); err == nil || !strings.Contains(err.Error(), "networkPolicy") {
			t.Errorf("%s: %v, want an error naming networkPolicy", name, err)
		}
	}
}

// networkPolicyShapes renders the policies' other forms: PostgreSQL by its
// pods, the sources of ingress named, extra egress rules, single sign-on.
func networkPolicyShapes() map[string]any {
	gateway := []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "gateway"}}}}
	extra := []any{map[string]any{"to": []any{map[string]any{"ipBlock": map[string]any{"cidr": "192.0.2.0/24"}}},
		"ports": []any{map[string]any{"protocol": "TCP", "port": 8443}}}}
	return withNetworkPolicy(map[string]any{"serverFrom": gateway, "metricsFrom": gateway,
		"database":   map[string]any{"podSelector": map[string]any{"app": "postgres"}, "ports": []any{5432}},
		"server":     map[string]any{"extraEgress": extra},
		"controller": map[string]any{"extraEgress": extra}},
		map[string]any{"server": map[string]any{"sso": map[string]any{"issuerURL": "https://dex.example.com", "clientID": "kubeopera"}}})
}

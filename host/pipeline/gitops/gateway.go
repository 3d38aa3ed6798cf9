package gitops

import (
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The Gateway API release whose standard-channel CRDs the tree installs.
// It is the version of sigs.k8s.io/gateway-api in go.mod (the Go types
// below come from it); TestGatewayAPIPinIsTheModuleInGoMod holds the two
// together and reads the CRDs from that module.
const (
	GatewayAPIVersion = "v1.6.3"
	// GatewayAPIModule is the Go module of that release; its module zip
	// holds the repository's config/crd, so a mirror (`kubeopera dev`'s)
	// can serve upstream's files from the Go module proxy.
	GatewayAPIModule = "sigs.k8s.io/gateway-api"
	// DefaultGatewayAPIRepoURL is upstream's repository, which the tree's
	// GitRepository fetches unless Params.GatewayAPIRepoURL names a mirror.
	DefaultGatewayAPIRepoURL = "https://github.com/kubernetes-sigs/gateway-api"
	// GatewayAPICRDDir is the repository's kustomization of the standard
	// channel's CRDs (and its safe-upgrade admission policy).
	GatewayAPICRDDir  = "config/crd"
	gatewayAPICRDPath = "./" + GatewayAPICRDDir
	// GatewayAPISource names the tree's GitRepository and Flux
	// Kustomization of the Gateway API CRDs, in the Flux namespace. They
	// carry the cluster's label like KubeOpera's own Flux objects, so a
	// disconnect removes them too; the CRDs they applied stay.
	GatewayAPISource = "gateway-api"
)

// Names of the Gateway objects.
const (
	// GatewayClassName is the GatewayClass Envoy Gateway serves.
	GatewayClassName = "kubeopera"
	// GatewayName is the Gateway in kubeopera-system that publishes the
	// server and the dashboard; cert-manager answers HTTP-01 through it.
	GatewayName = "kubeopera"
	// EnvoyGatewayControllerName is the controllerName of Envoy Gateway's
	// default configuration (config.envoyGateway.gateway.controllerName).
	EnvoyGatewayControllerName = "gateway.envoyproxy.io/gatewayclass-controller"
	// gatewayHTTPListener answers HTTP-01 challenges on port 80.
	gatewayHTTPListener     = "http"
	namespaceEnvoyGateway   = "envoy-gateway-system"
	releaseEnvoyGateway     = "envoy-gateway"
	releaseEnvoyGatewayCRDs = "envoy-gateway-crds"
)

// awsLoadBalancerType picks the AWS load balancer of a Service.
const awsLoadBalancerType = "service.beta.kubernetes.io/aws-load-balancer-type"

// gatewayAPICRDs is a Flux GitRepository of the Gateway API release and a
// Flux Kustomization that applies its standard CRDs. Flux's own kinds
// apply on a cluster with only Flux, as the layer requires.
func gatewayAPICRDs(p Params) []any {
	repo := &sourcev1.GitRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.GitRepositoryKind},
		ObjectMeta: metav1.ObjectMeta{Name: GatewayAPISource, Namespace: p.FluxNamespace},
		Spec: sourcev1.GitRepositorySpec{
			URL:       p.GatewayAPIRepoURL,
			Reference: &sourcev1.GitRepositoryRef{Tag: GatewayAPIVersion},
			Interval:  metav1.Duration{Duration: repositoryInterval},
		},
	}
	ks := &kustomizev1.Kustomization{
		TypeMeta:   metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind},
		ObjectMeta: metav1.ObjectMeta{Name: GatewayAPISource, Namespace: p.FluxNamespace},
		Spec: kustomizev1.KustomizationSpec{
			Interval:  metav1.Duration{Duration: releaseInterval},
			Path:      gatewayAPICRDPath,
			SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: GatewayAPISource},
			// CRDs hold every Gateway and route: never pruned, and left in
			// place when the Kustomization goes (a disconnect).
			Prune:          false,
			DeletionPolicy: kustomizev1.DeletionPolicyOrphan,
		},
	}
	return []any{repo, ks}
}

// envoyGateway installs Envoy Gateway: its own CRDs from the CRD chart
// (the Gateway API CRDs come from gatewayAPICRDs, so the chart's bundled
// copy is off), then the controller without its CRD subchart. A
// HelmRelease cannot wait on a Flux Kustomization: until the Gateway API
// CRDs are served the controller (and cert-manager's Gateway support)
// restarts, as on any cluster where CRDs arrive after their controller.
func envoyGateway(p Params) []any {
	crds := map[string]any{"crds": map[string]any{
		"gatewayAPI":   map[string]any{"enabled": false},
		"envoyGateway": map[string]any{"enabled": true},
	}}
	controller := map[string]any{"crds": map[string]any{"enabled": false}}
	return []any{
		helmRepository(p, chartEnvoyGateway),
		release(p, releaseEnvoyGatewayCRDs, namespaceEnvoyGateway, chartEnvoyGatewayCRDs, crds),
		release(p, releaseEnvoyGateway, namespaceEnvoyGateway, chartEnvoyGateway, controller, releaseEnvoyGatewayCRDs),
	}
}

// gatewayObjects are the GatewayClass, the Gateway and one HTTPRoute per
// host. The Gateway listens on port 80 for HTTP-01 challenges (cert-manager
// attaches its solver's route to that listener) and on 443 once per host,
// with a certificate cert-manager's Gateway support makes from the
// cluster-issuer annotation and the listener's hostname and Secret.
func gatewayObjects(p Params) []any {
	return []any{
		gatewayClass(),
		gateway(p),
		httpRoute(p, ServerName, p.APIHost()),
		httpRoute(p, DashboardName, p.DashboardHost()),
	}
}

func gatewayClass() *gatewayv1.GatewayClass {
	return &gatewayv1.GatewayClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "GatewayClass"},
		ObjectMeta: metav1.ObjectMeta{Name: GatewayClassName},
		Spec:       gatewayv1.GatewayClassSpec{ControllerName: EnvoyGatewayControllerName},
	}
}

func gateway(p Params) *gatewayv1.Gateway {
	same := gatewayv1.NamespacesFromSame
	listeners := []gatewayv1.Listener{{Name: gatewayHTTPListener, Port: 80, Protocol: gatewayv1.HTTPProtocolType,
		AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &same}}}}
	for _, h := range []struct{ name, host string }{{ServerName, p.APIHost()}, {DashboardName, p.DashboardHost()}} {
		host := gatewayv1.Hostname(h.host)
		listeners = append(listeners, gatewayv1.Listener{
			Name: gatewayv1.SectionName(h.name), Hostname: &host, Port: 443, Protocol: gatewayv1.HTTPSProtocolType,
			TLS: &gatewayv1.ListenerTLSConfig{CertificateRefs: []gatewayv1.SecretObjectReference{
				{Name: gatewayv1.ObjectName(h.name + "-tls")}}},
			AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &same}},
		})
	}
	gw := &gatewayv1.Gateway{
		TypeMeta: metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "Gateway"},
		ObjectMeta: metav1.ObjectMeta{Name: GatewayName, Namespace: NamespaceSystem,
			Annotations: map[string]string{"cert-manager.io/cluster-issuer": p.ClusterIssuer}},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: GatewayClassName, Listeners: listeners},
	}
	if p.Provider == ProviderAWS {
		// Envoy Gateway copies the Gateway's infrastructure annotations onto
		// the LoadBalancer Service it makes: a Network Load Balancer.
		gw.Spec.Infrastructure = &gatewayv1.GatewayInfrastructure{Annotations: map[gatewayv1.AnnotationKey]gatewayv1.AnnotationValue{
			awsLoadBalancerType: "nlb"}}
	}
	return gw
}

// httpRoute sends every request for host, through the Gateway's HTTPS
// listener of that name, to the server's Service.
func httpRoute(p Params, name, host string) *gatewayv1.HTTPRoute {
	section := gatewayv1.SectionName(name)
	ns := gatewayv1.Namespace(NamespaceSystem)
	port := gatewayv1.PortNumber(80)
	return &gatewayv1.HTTPRoute{
		TypeMeta:   metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "HTTPRoute"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: NamespaceSystem},
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{
				{Name: GatewayName, Namespace: &ns, SectionName: &section}}},
			Hostnames: []gatewayv1.Hostname{gatewayv1.Hostname(host)},
			Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{
				BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
					Name: ServerName, Port: &port}}}}}},
		},
	}
}

// http01Solver is the ACME HTTP-01 solver of the ClusterIssuer: a route
// cert-manager attaches to the Gateway's port-80 listener, or an Ingress
// of ingress-nginx's class when the cluster asked for ingress-nginx.
func http01Solver(p Params) map[string]any {
	if p.IngressNginx {
		return map[string]any{"ingress": map[string]any{"ingressClassName": IngressClassName}}
	}
	return map[string]any{"gatewayHTTPRoute": map[string]any{"parentRefs": []any{map[string]any{
		"name": GatewayName, "namespace": NamespaceSystem, "kind": "Gateway", "sectionName": gatewayHTTPListener,
	}}}}
}

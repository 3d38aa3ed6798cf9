package gitops

// ACMEServer is Let's Encrypt's production directory, where the tree's
// ClusterIssuer registers its account.
const ACMEServer = "https://acme-v02.api.letsencrypt.org/directory"

// tlsFiles is the tls layer: the cert-manager ClusterIssuer the Gateway
// names, issuing from Let's Encrypt with the HTTP-01 challenge answered
// through the Gateway, and the Gateway API objects that publish KubeOpera
// (with IngressNginx: the ClusterIssuer alone, answered through
// ingress-nginx, for the Ingresses in apps). It is a layer of its own
// because its kinds exist only once infrastructure has installed the
// cert-manager and Gateway API CRDs; Flux retries it until then, and apps
// does not wait for it.
func tlsFiles(p Params) []file {
	files := []file{{"cluster-issuer.yaml", []any{clusterIssuer(p)}}}
	if !p.IngressNginx {
		files = append(files, file{"gateway.yaml", gatewayObjects(p)})
	}
	return files
}

func clusterIssuer(p Params) map[string]any {
	return map[string]any{
		"apiVersion": "cert-manager.io/v1",
		"kind":       "ClusterIssuer",
		"metadata":   map[string]any{"name": p.ClusterIssuer},
		"spec": map[string]any{
			"acme": map[string]any{
				"server":              ACMEServer,
				"email":               p.AcmeEmail(),
				"privateKeySecretRef": map[string]any{"name": p.ClusterIssuer + "-account-key"},
				"solvers": []any{map[string]any{
					"http01": http01Solver(p),
				}},
			},
		},
	}
}

// AcmeEmail is the ACME account's contact: AdminEmail, else admin@Domain.
func (p Params) AcmeEmail() string {
	if p.AdminEmail != "" {
		return p.AdminEmail
	}
	return "admin@" + p.Domain
}

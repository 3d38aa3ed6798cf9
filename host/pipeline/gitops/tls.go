package gitops

// ACMEServer is Let's Encrypt's production directory, where the tree's
// ClusterIssuer registers its account.
const ACMEServer = "https://acme-v02.api.letsencrypt.org/directory"

// tlsFiles is the tls layer: the cert-manager ClusterIssuer the Ingresses
// name, issuing from Let's Encrypt with the HTTP-01 challenge answered
// through ingress-nginx. It is a layer of its own because its kind exists
// only once the cert-manager chart (infrastructure) has installed its
// CRDs; Flux retries it until then, and apps does not wait for it.
func tlsFiles(p Params) []file {
	return []file{{"cluster-issuer.yaml", []any{clusterIssuer(p)}}}
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
					"http01": map[string]any{"ingress": map[string]any{"ingressClassName": IngressClassName}},
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

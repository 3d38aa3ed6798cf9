// Package gitops generates a cluster's GitOps tree: the files KubeOpera
// pushes to the customer's repository and Flux applies from there.
//
// Flux on the target applies three Flux Kustomizations built elsewhere:
// "infrastructure" at InfrastructurePath, then "apps" at AppsPath and
// "tls" at TLSPath, both depending on infrastructure. The tree under
// Params.Path is:
//
//	README.md                       what is here, the chart table, what the platform must create
//	infrastructure/kustomization.yaml
//	infrastructure/namespaces.yaml  cert-manager, envoy-gateway-system, cnpg-system, kubeopera-data, kubeopera-system
//	infrastructure/cert-manager.yaml   HelmRepository + HelmRelease (CRDs installed by the chart; Gateway API support on)
//	infrastructure/gateway-api.yaml    GitRepository + Flux Kustomization: Gateway API standard CRDs at GatewayAPIVersion
//	infrastructure/envoy-gateway.yaml  HelmRepository (OCI) + HelmReleases of Envoy Gateway's CRDs and controller
//	infrastructure/storage.yaml     StorageClass for aws, gcp or azure (the provider installs the CSI driver)
//	infrastructure/database.yaml    CloudNativePG operator + a PostgreSQL cluster in kubeopera-data
//	apps/kustomization.yaml
//	apps/server.yaml                API server: RBAC, Deployment, Service
//	apps/controller.yaml            host-cluster-controller: RBAC, Deployment
//	tls/kustomization.yaml
//	tls/cluster-issuer.yaml         cert-manager ClusterIssuer (Let's Encrypt, HTTP-01 through the Gateway)
//	tls/gateway.yaml                GatewayClass (Envoy Gateway), Gateway kubeopera, HTTPRoutes for api.<domain> and <domain>
//
// storage.yaml is left out when the provider has no StorageClass of ours
// ("other"): the database then uses the cluster's default StorageClass.
//
// A cluster whose spec asks for ingress-nginx (Params.IngressNginx) gets
// the retired ingress-nginx instead: infrastructure/ingress-nginx.yaml in
// place of gateway-api.yaml and envoy-gateway.yaml, Ingresses in
// apps/server.yaml and apps/dashboard.yaml, an HTTP-01 solver through
// ingress-nginx, and no tls/gateway.yaml.
//
// infrastructure and apps hold only objects of kinds a cluster with only
// Flux installed can apply: core, apps, rbac, networking.k8s.io and
// storage.k8s.io objects, and Flux's own kinds. Kinds of third-party CRDs
// fail to apply until something installs their CRDs, so the PostgreSQL
// cluster comes from CloudNativePG's "cluster" chart (a HelmRelease that
// depends on the operator's), and the cert-manager and Gateway API objects
// are in the tls layer, which Flux retries until those CRDs exist without
// holding up apps. The HostCluster CRD the controller serves is not in the
// tree.
//
// No secret value is in the tree. Objects refer to Secrets the platform
// creates before Flux applies the tree; RequiredSecrets lists them.
//
// Generate is deterministic: the same Params give a byte-identical Tree, so
// a pusher can skip a commit when nothing changed.
package gitops

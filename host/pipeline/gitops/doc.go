// Package gitops generates a cluster's GitOps tree: the files KubeOpera
// pushes to the customer's repository and Flux applies from there.
//
// Flux on the target applies three Flux Kustomizations built elsewhere:
// "infrastructure" at InfrastructurePath, then "apps" at AppsPath and
// "tls" at TLSPath, both depending on infrastructure. The tree under
// Params.Path is:
//
//	README.md                       what is here and what the platform must create
//	infrastructure/kustomization.yaml
//	infrastructure/namespaces.yaml  cert-manager, ingress-nginx, cnpg-system, kubeopera-data, kubeopera-system
//	infrastructure/cert-manager.yaml   HelmRepository + HelmRelease (CRDs installed by the chart)
//	infrastructure/ingress-nginx.yaml  HelmRepository + HelmRelease (IngressClass "nginx")
//	infrastructure/storage.yaml     StorageClass for aws, gcp or azure (the provider installs the CSI driver)
//	infrastructure/database.yaml    CloudNativePG operator + a PostgreSQL cluster in kubeopera-data
//	apps/kustomization.yaml
//	apps/server.yaml                API server: RBAC, Deployment, Service, Ingress at api.<domain>
//	apps/controller.yaml            host-cluster-controller: RBAC, Deployment
//	apps/dashboard.yaml             dashboard: Ingress at <domain> to the server, which serves it
//	tls/kustomization.yaml
//	tls/cluster-issuer.yaml         cert-manager ClusterIssuer (Let's Encrypt, HTTP-01 via ingress-nginx)
//
// storage.yaml is left out when the provider has no StorageClass of ours
// ("other"): the database then uses the cluster's default StorageClass.
//
// infrastructure and apps hold only objects of kinds a cluster with only
// Flux installed can apply: core, apps, rbac, networking.k8s.io and
// storage.k8s.io objects, and Flux's HelmRepository and HelmRelease. Kinds
// of third-party CRDs fail to apply until a chart installs their CRDs, so
// the PostgreSQL cluster comes from CloudNativePG's "cluster" chart (a
// HelmRelease that depends on the operator's), and the one cert-manager
// object, the ClusterIssuer the Ingresses name in their
// cert-manager.io/cluster-issuer annotation, is alone in the tls layer,
// which Flux retries until cert-manager's CRDs exist without holding up
// apps. The HostCluster CRD the controller serves is not in the tree.
//
// No secret value is in the tree. Objects refer to Secrets the platform
// creates before Flux applies the tree; RequiredSecrets lists them.
//
// Generate is deterministic: the same Params give a byte-identical Tree, so
// a pusher can skip a commit when nothing changed.
package gitops

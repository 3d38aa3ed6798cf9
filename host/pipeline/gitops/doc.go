// Package gitops generates a cluster's GitOps tree: the files KubeOpera
// pushes to the customer's repository and Flux applies from there.
//
// Flux on the target applies two Flux Kustomizations built elsewhere:
// "infrastructure" at InfrastructurePath and "apps" at AppsPath, the latter
// depending on the former. The tree under Params.Path is:
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
//
// storage.yaml is left out when the provider has no StorageClass of ours
// ("other"): the database then uses the cluster's default StorageClass.
//
// Every object is of a kind a cluster with only Flux installed can apply:
// core, apps, rbac, networking.k8s.io and storage.k8s.io objects, and
// Flux's HelmRepository (source.toolkit.fluxcd.io/v1) and HelmRelease
// (helm.toolkit.fluxcd.io/v2). Kinds of third-party CRDs are left out on
// purpose, since they fail to apply until a chart installs their CRDs: the
// PostgreSQL cluster comes from CloudNativePG's "cluster" chart (a
// HelmRelease that depends on the operator's), and no cert-manager
// ClusterIssuer or Certificate is emitted: the Ingresses ask for their
// certificate through the cert-manager.io/cluster-issuer annotation, and the
// ClusterIssuer it names (Params.ClusterIssuer) is left to a follow-up layer
// (a third Flux Kustomization depending on infrastructure); the README shows
// one. The HostCluster CRD the controller serves is not in the tree either.
//
// No secret value is in the tree. Objects refer to Secrets the platform
// creates before Flux applies the tree; RequiredSecrets lists them.
//
// Generate is deterministic: the same Params give a byte-identical Tree, so
// a pusher can skip a commit when nothing changed.
package gitops

package gitops

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// Namespaces the tree creates.
const (
	// NamespaceSystem runs KubeOpera's server (with the dashboard) and controller.
	NamespaceSystem = v1alpha1.Namespace
	// NamespaceData runs KubeOpera's PostgreSQL.
	NamespaceData         = "kubeopera-data"
	namespaceCertManager  = "cert-manager"
	namespaceIngressNginx = "ingress-nginx"
	namespaceCNPG         = "cnpg-system"
)

// IngressClassName is the IngressClass ingress-nginx serves and the
// Ingresses name.
const IngressClassName = "nginx"

// StorageClassName is the StorageClass the tree creates for providers it
// knows (aws, gcp, azure); the database's volumes use it.
const StorageClassName = "kubeopera"

// Names of the HelmReleases, which are also their Helm release names.
const (
	releaseCertManager  = "cert-manager"
	releaseIngressNginx = "ingress-nginx"
	releaseCNPG         = "cloudnative-pg"
	// DatabaseRelease is the HelmRelease of KubeOpera's PostgreSQL and the
	// name of its CloudNativePG Cluster.
	DatabaseRelease = "kubeopera-postgresql"
)

// DatabaseName and DatabaseUser are the database KubeOpera uses and the
// role that owns it.
const (
	DatabaseName = "kubeopera"
	DatabaseUser = "kubeopera"
)

// DatabaseHost is the read-write Service CloudNativePG makes for the cluster.
const DatabaseHost = DatabaseRelease + "-rw." + NamespaceData + ".svc"

func infrastructureFiles(p Params) []file {
	files := []file{
		{"namespaces.yaml", namespaces(p)},
		{"cert-manager.yaml", certManager(p)},
	}
	if p.IngressNginx {
		files = append(files, file{"ingress-nginx.yaml", ingressNginx(p)})
	} else {
		files = append(files, file{"gateway-api.yaml", gatewayAPICRDs(p)}, file{"envoy-gateway.yaml", envoyGateway(p)})
	}
	if objs := storage(p); len(objs) > 0 {
		files = append(files, file{"storage.yaml", objs})
	}
	return append(files, file{"database.yaml", database(p)}, file{"kubeopera-access.yaml", accessObjects()})
}

func namespaces(p Params) []any {
	var objs []any
	edge := namespaceEnvoyGateway
	if p.IngressNginx {
		edge = namespaceIngressNginx
	}
	for _, name := range []string{namespaceCertManager, edge, namespaceCNPG, NamespaceData, NamespaceSystem} {
		ns := &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: name},
		}
		if name == NamespaceSystem {
			ns.Annotations = map[string]string{"kubeopera.io/cluster-name": p.ClusterName}
		}
		objs = append(objs, ns)
	}
	return objs
}

func certManager(p Params) []any {
	values := map[string]any{
		// The chart installs and upgrades its CRDs, and keeps them on uninstall
		// so certificates survive a re-install.
		"crds": map[string]any{"enabled": true, "keep": true},
	}
	if !p.IngressNginx {
		// Certificates for the Gateway's listeners (gateway-shim) and the
		// HTTP-01 solver's HTTPRoutes.
		values["config"] = map[string]any{
			"apiVersion": "controller.config.cert-manager.io/v1alpha1",
			"kind":       "ControllerConfiguration",
			"gatewayAPI": map[string]any{"enabled": true},
		}
	}
	return []any{
		helmRepository(p, chartCertManager),
		release(p, releaseCertManager, namespaceCertManager, chartCertManager, values),
	}
}

func ingressNginx(p Params) []any {
	controller := map[string]any{
		"ingressClass": IngressClassName,
		"ingressClassResource": map[string]any{
			"name": IngressClassName, "enabled": true, "default": false,
		},
	}
	if p.Provider == ProviderAWS {
		// A Network Load Balancer passes TLS through to ingress-nginx.
		controller["service"] = map[string]any{"annotations": map[string]any{
			awsLoadBalancerType: "nlb",
		}}
	}
	return []any{
		helmRepository(p, chartIngressNginx),
		release(p, releaseIngressNginx, namespaceIngressNginx, chartIngressNginx, map[string]any{"controller": controller}),
	}
}

// storageClassFor says how each known provider provisions block volumes,
// through the CSI driver the cluster's provider installs (on AWS: the EKS
// add-on, or the aws-vanilla bootstrap). The tree installs no driver: it
// stays the same for every provider's clusters, and a second install would
// fight the first over the CSIDriver object.
var storageClassFor = map[string]struct {
	provisioner string
	parameters  map[string]string
}{
	ProviderAWS:   {"ebs.csi.aws.com", map[string]string{"type": "gp3", "encrypted": "true"}},
	ProviderGCP:   {"pd.csi.storage.gke.io", map[string]string{"type": "pd-balanced"}},
	ProviderAzure: {"disk.csi.azure.com", map[string]string{"skuName": "StandardSSD_LRS"}},
}

// defaultClassAnnotation marks a cluster's default StorageClass, the one
// a claim without storageClassName gets.
const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// storage is the StorageClass for the provider (none for "other"), the
// cluster's default when p.DefaultStorageClass. Volumes
// are created in the zone of the pod that first uses them
// (WaitForFirstConsumer) and retained when their claim goes: they hold the
// database.
func storage(p Params) []any {
	sc, ok := storageClassFor[p.Provider]
	if !ok {
		return nil
	}
	retain := corev1.PersistentVolumeReclaimRetain
	waitForConsumer := storagev1.VolumeBindingWaitForFirstConsumer
	expand := true
	meta := metav1.ObjectMeta{Name: StorageClassName}
	if p.DefaultStorageClass {
		meta.Annotations = map[string]string{defaultClassAnnotation: "true"}
	}
	return []any{&storagev1.StorageClass{
		TypeMeta:             metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
		ObjectMeta:           meta,
		Provisioner:          sc.provisioner,
		Parameters:           sc.parameters,
		ReclaimPolicy:        &retain,
		VolumeBindingMode:    &waitForConsumer,
		AllowVolumeExpansion: &expand,
	}}
}

// databaseStorageClass is the StorageClass of the database's volumes; ""
// means the cluster's default.
func databaseStorageClass(p Params) string {
	if p.Database.StorageClass != "" {
		return p.Database.StorageClass
	}
	if _, ok := storageClassFor[p.Provider]; ok {
		return StorageClassName
	}
	return ""
}

// database is the CloudNativePG operator and, once it is ready, a PostgreSQL
// cluster from its "cluster" chart. The database and its owner are made by
// initdb with the password in the platform-made DatabaseSecret.
func database(p Params) []any {
	operator := map[string]any{"crds": map[string]any{"create": true}}
	storageSpec := map[string]any{"size": p.Database.Size}
	if sc := databaseStorageClass(p); sc != "" {
		storageSpec["storageClass"] = sc
	}
	cluster := map[string]any{
		"type":             "postgresql",
		"mode":             "standalone",
		"fullnameOverride": DatabaseRelease,
		"version":          map[string]any{"postgresql": p.Database.PostgresVersion},
		"cluster": map[string]any{
			"instances": p.Database.Instances,
			"storage":   storageSpec,
			"initdb": map[string]any{
				"database": DatabaseName,
				"owner":    DatabaseUser,
				"secret":   map[string]any{"name": DatabaseSecret},
			},
			"enableSuperuserAccess": false,
			// A PodDisruptionBudget on a single instance blocks node drains.
			"enablePDB": p.Database.Instances > 1,
		},
	}
	return []any{
		helmRepository(p, chartCNPGOperator),
		release(p, releaseCNPG, namespaceCNPG, chartCNPGOperator, operator),
		release(p, DatabaseRelease, NamespaceData, chartCNPGCluster, cluster, releaseCNPG),
	}
}

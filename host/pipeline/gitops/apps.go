package gitops

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Names of KubeOpera's workloads; each names its Deployment, Service,
// Ingress, ServiceAccount and RBAC objects alike.
const (
	ServerName     = "kubeopera-server"
	ControllerName = "kubeopera-controller"
	// DashboardName names the Ingress of the dashboard, which the server
	// serves.
	DashboardName = "kubeopera-dashboard"
)

// imageKubeOpera is the one image `make image` builds: the server, the
// controller and the dashboard are one binary (its entrypoint), with the
// provider plugins in /plugins.
const (
	imageKubeOpera = "kubeopera"
	serverPort     = 8080
	dataDir        = "/data"
)

func appsFiles(p Params) []file {
	files := []file{
		{"server.yaml", server(p)},
		{"controller.yaml", controller(p)},
	}
	if p.IngressNginx {
		files = append(files, file{"dashboard.yaml", dashboard(p)})
	}
	return files
}

func server(p Params) []any {
	env := append(databaseEnv(),
		envValue("KUBEOPERA_LISTEN", fmt.Sprintf(":%d", serverPort)),
		corev1.EnvVar{Name: "KUBEOPERA_ADMIN_TOKEN", ValueFrom: secretKey(AdminTokenSecret, AdminTokenSecretKey, true)},
		corev1.EnvVar{Name: "KUBEOPERA_SETUP_SECRET", ValueFrom: secretKey(SetupSecret, SetupSecretKey, false)},
	)
	c := container(p, "server", imageKubeOpera, []string{"server"}, env)
	withDataDir(&c)
	c.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: serverPort}}
	c.ReadinessProbe = httpProbe("/readyz", "http")
	c.LivenessProbe = httpProbe("/healthz", "http")
	objs := []any{serviceAccount(ServerName)}
	objs = append(objs, serverRBAC()...)
	objs = append(objs, deployment(p, ServerName, "server", c), service(ServerName, "server"))
	if p.IngressNginx {
		objs = append(objs, ingress(p, ServerName, ServerName, p.APIHost()))
	}
	return objs
}

func controller(p Params) []any {
	// Terraform runs as Jobs in the cluster, as config/default sets it.
	env := append(databaseEnv(), envValue("KUBEOPERA_TERRAFORM_EXECUTOR", "job"))
	c := container(p, "controller", imageKubeOpera, []string{"controller", "--leader-elect"}, env)
	withDataDir(&c)
	c.Ports = []corev1.ContainerPort{{Name: "metrics", ContainerPort: 8080}, {Name: "probes", ContainerPort: 8081}}
	c.ReadinessProbe = httpProbe("/readyz", "probes")
	c.LivenessProbe = httpProbe("/healthz", "probes")
	objs := []any{serviceAccount(ControllerName)}
	objs = append(objs, controllerRBAC()...)
	return append(objs, deployment(p, ControllerName, "controller", c))
}

// dashboard publishes the dashboard, which the server serves, at the
// domain itself.
func dashboard(p Params) []any {
	return []any{ingress(p, DashboardName, ServerName, p.DashboardHost())}
}

// databaseEnv is what the server and controller need to open the database
// and its sealed credentials. The URL is composed by the kubelet from the
// password variable before it, so no password is in the tree.
func databaseEnv() []corev1.EnvVar {
	return []corev1.EnvVar{
		envValue("KUBEOPERA_DATA_DIR", dataDir),
		{Name: "KUBEOPERA_DATABASE_PASSWORD", ValueFrom: secretKey(DatabaseSecret, corev1.BasicAuthPasswordKey, false)},
		envValue("KUBEOPERA_DATABASE_URL", "postgres://"+DatabaseUser+":$(KUBEOPERA_DATABASE_PASSWORD)@"+
			DatabaseHost+":5432/"+DatabaseName+"?sslmode=require"),
		{Name: "KUBEOPERA_ENCRYPTION_KEY", ValueFrom: secretKey(EncryptionKeySecret, EncryptionKeySecretKey, false)},
	}
}

// withDataDir mounts scratch space at KUBEOPERA_DATA_DIR: with PostgreSQL
// configured and the key given, nothing there needs to outlive the pod.
func withDataDir(c *corev1.Container) {
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: dataDir})
}

func envValue(name, value string) corev1.EnvVar { return corev1.EnvVar{Name: name, Value: value} }

func secretKey(name, key string, optional bool) *corev1.EnvVarSource {
	return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key, Optional: &optional}}
}

// container is a locked-down container running image at p's version with
// args (the image's entrypoint is the kubeopera binary), with a writable
// /tmp and nothing else writable.
func container(p Params, name, image string, args []string, env []corev1.EnvVar) corev1.Container {
	no := false
	yes := true
	return corev1.Container{
		Name:  name,
		Image: p.ImageRegistry + "/" + image + ":" + p.Version,
		Args:  args,
		Env:   env,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"),
				corev1.ResourceMemory: resource.MustParse("128Mi")},
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: &no,
			ReadOnlyRootFilesystem:   &yes,
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
}

func httpProbe(path, port string) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
		HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(port)}}}
}

func appLabels(name, component string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      name,
		"app.kubernetes.io/component": component,
		"app.kubernetes.io/part-of":   "kubeopera",
	}
}

// deployment runs c as one replica under the ServiceAccount of the same
// name.
func deployment(p Params, name, component string, c corev1.Container) *appsv1.Deployment {
	replicas := int32(1)
	yes := true
	spec := corev1.PodSpec{
		Containers: []corev1.Container{c},
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &yes,
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
	}
	// Every mount is a scratch emptyDir: state lives in the database.
	for _, m := range c.VolumeMounts {
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: m.Name,
			VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	}
	spec.ServiceAccountName = name
	if p.PullSecret != "" {
		spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: p.PullSecret}}
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: NamespaceSystem, Labels: appLabels(name, component)},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: appLabels(name, component)},
				Spec:       spec,
			},
		},
	}
}

func service(name, component string) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: NamespaceSystem, Labels: appLabels(name, component)},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app.kubernetes.io/name": name},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}},
		},
	}
}

// ingress publishes the Service backend at host over TLS. cert-manager's
// ingress-shim issues the certificate into <name>-tls from the annotation.
func ingress(p Params, name, backend, host string) *networkingv1.Ingress {
	className := IngressClassName
	prefix := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: NamespaceSystem,
			Annotations: map[string]string{"cert-manager.io/cluster-issuer": p.ClusterIssuer}},
		Spec: networkingv1.IngressSpec{
			IngressClassName: &className,
			TLS:              []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: name + "-tls"}},
			Rules: []networkingv1.IngressRule{{
				Host: host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{
						Path: "/", PathType: &prefix,
						Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: backend, Port: networkingv1.ServiceBackendPort{Name: "http"}}},
					}},
				}},
			}},
		},
	}
}

package gitops

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// allowedKinds are the kinds a cluster with only Flux installed can apply,
// and whether each is namespaced. A kind of a third-party CRD (a
// cert-manager ClusterIssuer, a CloudNativePG Cluster) must not be added:
// it fails to apply until a HelmRelease has installed its CRD. (The tls
// layer, which holds the ClusterIssuer alone, is checked in tls_test.go.)
var allowedKinds = map[schema.GroupVersionKind]bool{
	{Version: "v1", Kind: "Namespace"}:                                              false,
	{Version: "v1", Kind: "ServiceAccount"}:                                         true,
	{Version: "v1", Kind: "Service"}:                                                true,
	{Version: "v1", Kind: "ConfigMap"}:                                              true,
	{Group: "apps", Version: "v1", Kind: "Deployment"}:                              true,
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}:        false,
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}: false,
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}:               true,
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}:        true,
	{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}:                    true,
	{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass"}:                  false,
	{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "HelmRepository"}:      true,
	{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "GitRepository"}:       true,
	{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"}:    true,
	{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}:           true,
}

var (
	gvkHelmRelease = schema.GroupVersionKind{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}
	gvkDeployment  = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	gvkIngress     = schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}
)

// variants cover the shapes of tree: full AWS, the bare minimum at the
// repository root, a GKE cluster with a custom database, and an AWS
// cluster that asked for ingress-nginx.
func variants() map[string]Params {
	gcp := minimalParams()
	gcp.Provider, gcp.Path = ProviderGCP, "fleet/gke/c1"
	gcp.Database = Database{Instances: 3, Size: "50Gi", StorageClass: "premium-rwo", PostgresVersion: "16"}
	return map[string]Params{"aws": prodParams(), "minimal": minimalParams(), "gcp": gcp, "ingress-nginx": nginxParams()}
}

// nginxParams are prodParams for a cluster that asked for ingress-nginx.
func nginxParams() Params {
	p := prodParams()
	p.IngressNginx = true
	return p
}

func TestEveryKustomizationBuildsToAppliableLabelledObjects(t *testing.T) {
	for name, p := range variants() {
		t.Run(name, func(t *testing.T) {
			for _, o := range buildAll(t, p) {
				id := fmt.Sprintf("%s %s/%s", o.GetAPIVersion(), o.GetKind(), o.GetName())
				if o.GetAPIVersion() == "" || o.GetKind() == "" || o.GetName() == "" {
					t.Errorf("%s: apiVersion, kind and metadata.name must all be set", id)
				}
				namespaced, allowed := allowedKinds[o.GroupVersionKind()]
				if !allowed {
					t.Errorf("%s: kind not in the allow-list of what a cluster with only Flux can apply", id)
				}
				if namespaced != (o.GetNamespace() != "") {
					t.Errorf("%s: namespace %q, but namespaced is %v", id, o.GetNamespace(), namespaced)
				}
				if got := o.GetLabels()[v1alpha1.ClusterIDLabel]; got != p.ClusterID {
					t.Errorf("%s: label %s = %q, want %q", id, v1alpha1.ClusterIDLabel, got, p.ClusterID)
				}
			}
		})
	}
}

func TestTreeHoldsEveryComponent(t *testing.T) {
	p := prodParams()
	objs := buildAll(t, p)
	charts := map[string]string{} // HelmRelease name -> chart
	for _, hr := range ofKind(objs, gvkHelmRelease) {
		charts[hr.GetName()] = str(t, hr, "spec", "chart", "spec", "chart")
		repo := str(t, hr, "spec", "chart", "spec", "sourceRef", "name")
		find(t, objs, "HelmRepository", repo)
	}
	want := map[string]string{"cert-manager": "cert-manager", releaseEnvoyGateway: "gateway-helm",
		releaseEnvoyGatewayCRDs: "gateway-crds-helm", "cloudnative-pg": "cloudnative-pg", DatabaseRelease: "cluster"}
	if !reflect.DeepEqual(charts, want) {
		t.Errorf("HelmReleases (name: chart) = %v, want %v", charts, want)
	}
	certManager := find(t, objs, "HelmRelease", "cert-manager")
	if enabled, _, _ := unstructured.NestedBool(certManager.Object, "spec", "values", "crds", "enabled"); !enabled {
		t.Error("cert-manager must install its CRDs (values crds.enabled: true)")
	}
	checkAWSStorageClass(t, find(t, objs, "StorageClass", StorageClassName))
	for name, args := range map[string]string{ServerName: "server", ControllerName: "controller --leader-elect"} {
		c := deploymentOf(t, find(t, objs, "Deployment", name)).Spec.Template.Spec.Containers[0]
		if got := strings.Join(c.Args, " "); got != args || len(c.Command) > 0 {
			t.Errorf("%s command %v args %q, want the image's entrypoint with %q", name, c.Command, got, args)
		}
		if want := "ghcr.io/ochestra-tech/kubeopera:"; !strings.HasPrefix(c.Image, want) {
			t.Errorf("%s image %s, want the one make image builds, %s<version>", name, c.Image, want)
		}
	}
	find(t, objs, "ClusterRoleBinding", ControllerName)
	find(t, objs, "ServiceAccount", ControllerName)
}

func TestDatabaseIsWhereTheAppsLookAndWaitsForItsOperator(t *testing.T) {
	p := prodParams()
	objs := buildAll(t, p)
	db := find(t, objs, "HelmRelease", DatabaseRelease)
	if ns := str(t, db, "spec", "targetNamespace"); ns != NamespaceData {
		t.Errorf("database installed into %q, want %q", ns, NamespaceData)
	}
	// CloudNativePG names the read-write Service <cluster>-rw.
	cluster := str(t, db, "spec", "values", "fullnameOverride")
	wantHost := cluster + "-rw." + str(t, db, "spec", "targetNamespace") + ".svc:5432/"
	secret := str(t, db, "spec", "values", "cluster", "initdb", "secret", "name")
	deps, _, _ := unstructured.NestedSlice(db.Object, "spec", "dependsOn")
	if len(deps) == 0 || deps[0].(map[string]any)["name"] != "cloudnative-pg" {
		t.Errorf("database dependsOn %v, want the cloudnative-pg operator first", deps)
	}
	for _, name := range []string{ServerName, ControllerName} {
		env := envOf(deploymentOf(t, find(t, objs, "Deployment", name)).Spec.Template.Spec.Containers[0])
		if url := env["KUBEOPERA_DATABASE_URL"].Value; !strings.Contains(url, "@"+wantHost+DatabaseName+"?") {
			t.Errorf("%s database URL %q does not reach %s%s", name, url, wantHost, DatabaseName)
		}
		if ref := env["KUBEOPERA_DATABASE_PASSWORD"].ValueFrom; ref == nil || ref.SecretKeyRef.Name != secret {
			t.Errorf("%s takes its database password from %+v, want Secret %s (the one initdb uses)", name, ref, secret)
		}
	}
}

// A cluster that asks for ingress-nginx gets Ingresses instead of the
// Gateway (gateway_test.go holds the default).
func TestIngressesServeTheDomainOverTLS(t *testing.T) {
	p := nginxParams()
	objs := build(t, p, generate(t, p), AppsDir)
	want := map[string]string{ServerName: "api.ops.example.com", DashboardName: "ops.example.com"}
	got := map[string]string{}
	for _, o := range ofKind(objs, gvkIngress) {
		var ing networkingv1.Ingress
		fromUnstructured(t, o, &ing)
		host := ing.Spec.Rules[0].Host
		got[ing.Name] = host
		// The server serves the API and the dashboard.
		if ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name != ServerName {
			t.Errorf("Ingress %s routes to %s, want the server", ing.Name, ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name)
		}
		if len(ing.Spec.TLS) != 1 || !slices.Equal(ing.Spec.TLS[0].Hosts, []string{host}) || ing.Spec.TLS[0].SecretName == "" {
			t.Errorf("Ingress %s TLS %+v, want one certificate for %s", ing.Name, ing.Spec.TLS, host)
		}
		if issuer := ing.Annotations["cert-manager.io/cluster-issuer"]; issuer != DefaultClusterIssuer {
			t.Errorf("Ingress %s cluster-issuer %q, want %q", ing.Name, issuer, DefaultClusterIssuer)
		}
		if c := ing.Spec.IngressClassName; c == nil || *c != IngressClassName {
			t.Errorf("Ingress %s class %v, want %s", ing.Name, c, IngressClassName)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Ingress hosts %v, want %v", got, want)
	}
	if p.APIHost() != want[ServerName] || p.DashboardHost() != want[DashboardName] {
		t.Errorf("APIHost %q, DashboardHost %q disagree with the Ingresses %v", p.APIHost(), p.DashboardHost(), want)
	}
}

func TestEveryKubeOperaPodRunsTheVersionWithThePullSecret(t *testing.T) {
	for name, tc := range map[string]struct {
		p          Params
		wantSecret []corev1.LocalObjectReference
	}{
		"pull secret": {prodParams(), []corev1.LocalObjectReference{{Name: "kubeopera-pull"}}},
		"none":        {minimalParams(), nil},
	} {
		t.Run(name, func(t *testing.T) {
			p := tc.p.withDefaults()
			deployments := ofKind(build(t, p, generate(t, tc.p), AppsDir), gvkDeployment)
			if len(deployments) != 2 {
				t.Fatalf("%d Deployments in apps, want server and controller", len(deployments))
			}
			for _, o := range deployments {
				d := deploymentOf(t, o)
				pod := d.Spec.Template.Spec
				if !reflect.DeepEqual(pod.ImagePullSecrets, tc.wantSecret) {
					t.Errorf("%s imagePullSecrets %v, want %v", d.Name, pod.ImagePullSecrets, tc.wantSecret)
				}
				for _, c := range pod.Containers {
					if !strings.HasPrefix(c.Image, p.ImageRegistry+"/") || !strings.HasSuffix(c.Image, ":"+p.Version) {
						t.Errorf("%s/%s image %q, want %s/...:%s", d.Name, c.Name, c.Image, p.ImageRegistry, p.Version)
					}
				}
				if got := d.Spec.Template.Labels[v1alpha1.ClusterIDLabel]; got != p.ClusterID {
					t.Errorf("%s pods labelled %q, want cluster ID %q", d.Name, got, p.ClusterID)
				}
			}
		})
	}
}

func TestSameParamsGiveByteIdenticalTrees(t *testing.T) {
	for name, p := range variants() {
		first := generate(t, p)
		for i := 0; i < 20; i++ {
			if again := generate(t, p); !reflect.DeepEqual(first, again) {
				t.Fatalf("%s: run %d differs: %v", name, i, diffPaths(first, again))
			}
		}
	}
}

func TestDifferentClusterOrDomainChangesTheTree(t *testing.T) {
	base := generate(t, prodParams())
	for name, tc := range map[string]struct {
		change func(*Params)
		files  []string // files that must change
		old    string   // text that must be gone from them
	}{
		"cluster ID": {func(p *Params) { p.ClusterID = "prod-us-1" },
			[]string{"clusters/prod-eu/apps/kustomization.yaml", "clusters/prod-eu/infrastructure/kustomization.yaml"}, "prod-eu-1"},
		"domain": {func(p *Params) { p.Domain = "kubeopera.example.net" },
			[]string{"clusters/prod-eu/tls/gateway.yaml"}, "ops.example.com"},
	} {
		t.Run(name, func(t *testing.T) {
			p := prodParams()
			tc.change(&p)
			changed := generate(t, p)
			for _, f := range tc.files {
				if bytes.Equal(base[f], changed[f]) {
					t.Errorf("%s unchanged", f)
				}
				if bytes.Contains(changed[f], []byte(tc.old)) {
					t.Errorf("%s still says %q", f, tc.old)
				}
			}
		})
	}
}

func TestTreeLayout(t *testing.T) {
	prod := prodParams()
	want := []string{"README.md", "apps/controller.yaml", "apps/kustomization.yaml",
		"apps/server.yaml", "infrastructure/cert-manager.yaml", "infrastructure/database.yaml",
		"infrastructure/envoy-gateway.yaml", "infrastructure/gateway-api.yaml",
		"infrastructure/kubeopera-access.yaml", "infrastructure/kustomization.yaml", "infrastructure/namespaces.yaml",
		"infrastructure/storage.yaml", "tls/cluster-issuer.yaml", "tls/gateway.yaml", "tls/kustomization.yaml"}
	var got []string
	for _, p := range generate(t, prod).Paths() {
		rel, ok := strings.CutPrefix(p, prod.Path+"/")
		if !ok {
			t.Errorf("%s is not under %s/", p, prod.Path)
		}
		got = append(got, rel)
	}
	if !slices.Equal(got, want) {
		t.Errorf("files under %s:\n got %v\nwant %v", prod.Path, got, want)
	}
	// At the repository root, with no StorageClass for an unknown provider.
	rootWant := slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == "infrastructure/storage.yaml" })
	if got := generate(t, minimalParams()).Paths(); !slices.Equal(got, rootWant) {
		t.Errorf("files at the root:\n got %v\nwant %v", got, rootWant)
	}
	// ingress-nginx instead of Envoy Gateway, Ingresses in apps instead of
	// the Gateway in tls.
	nginxWant := []string{"README.md", "apps/controller.yaml", "apps/dashboard.yaml", "apps/kustomization.yaml",
		"apps/server.yaml", "infrastructure/cert-manager.yaml", "infrastructure/database.yaml",
		"infrastructure/ingress-nginx.yaml", "infrastructure/kubeopera-access.yaml", "infrastructure/kustomization.yaml", "infrastructure/namespaces.yaml",
		"infrastructure/storage.yaml", "tls/cluster-issuer.yaml", "tls/kustomization.yaml"}
	nginx := nginxParams()
	nginx.Path = ""
	if got := generate(t, nginx).Paths(); !slices.Equal(got, nginxWant) {
		t.Errorf("files with ingress-nginx:\n got %v\nwant %v", got, nginxWant)
	}
	if got := prod.InfrastructurePath(); got != "./clusters/prod-eu/infrastructure" {
		t.Errorf("InfrastructurePath = %q", got)
	}
	if got := minimalParams().AppsPath(); got != "./apps" {
		t.Errorf("AppsPath at the root = %q", got)
	}
}

// secretLiteral finds a key that names a password, token or key (in YAML,
// or a Markdown line) set to a literal other than a boolean; urlCredential
// finds credentials written into a URL.
var (
	secretLiteral = regexp.MustCompile(`(?im)^[ \t|-]*[\w.-]*(password|passwd|token|secretkey|privatekey|apikey)[ \t]*:[ \t]*` +
		`([^\s{\[]+)`)
	urlCredential = regexp.MustCompile(`://[^/\s:@]+:([^@\s]+)@`)
)

func TestNoSecretValueInTheTree(t *testing.T) {
	// The detectors themselves: they must flag a literal and pass a reference.
	for text, leaks := range map[string]bool{
		"password: hunter2\n": true, "  adminPassword: x\n": true, "- token: abc\n": true,
		"| KUBEOPERA_ADMIN_TOKEN: abc |\n": true, "automountServiceAccountToken: false\n": false,
		"postgres://kubeopera:hunter2@db:5432/x": true,
		"key: password\n":                        false, "passwordSecret: {}\n": false,
		"postgres://kubeopera:$(KUBEOPERA_DATABASE_PASSWORD)@db:5432/x": false,
	} {
		if got := leaksSecret([]byte(text)); got != leaks {
			t.Errorf("detector on %q = %v, want %v", text, got, leaks)
		}
	}
	for name, p := range variants() {
		for path, body := range generate(t, p) {
			if leaksSecret(body) {
				t.Errorf("%s: %s holds a secret value:\n%s", name, path, body)
			}
		}
	}
}

func leaksSecret(body []byte) bool {
	for _, m := range secretLiteral.FindAllSubmatch(body, -1) {
		if v := strings.ToLower(string(m[2])); v != "true" && v != "false" {
			return true
		}
	}
	for _, m := range urlCredential.FindAllSubmatch(body, -1) {
		if string(m[1]) != "$(KUBEOPERA_DATABASE_PASSWORD)" {
			return true
		}
	}
	return false
}

func TestRequiredSecretsCoverEveryReference(t *testing.T) {
	p := prodParams()
	objs := buildAll(t, p)
	have := map[string][]string{} // namespace/name -> keys
	for _, r := range p.RequiredSecrets() {
		have[r.Namespace+"/"+r.Name] = r.Keys
	}
	need := func(ns, name, key string) {
		keys, ok := have[ns+"/"+name]
		if !ok || (key != "" && !slices.Contains(keys, key)) {
			t.Errorf("Secret %s/%s (key %q) is referred to but not in RequiredSecrets", ns, name, key)
		}
	}
	db := find(t, objs, "HelmRelease", DatabaseRelease)
	need(NamespaceData, str(t, db, "spec", "values", "cluster", "initdb", "secret", "name"), corev1.BasicAuthPasswordKey)
	refs := 0
	for _, o := range ofKind(objs, gvkDeployment) {
		pod := deploymentOf(t, o).Spec.Template.Spec
		for _, s := range pod.ImagePullSecrets {
			need(o.GetNamespace(), s.Name, "")
			refs++
		}
		for _, e := range pod.Containers[0].Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				need(o.GetNamespace(), e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key)
				refs++
			}
		}
	}
	if refs < 7 {
		t.Errorf("found %d Secret references in the Deployments; the test is not looking where it should", refs)
	}
}

func deploymentOf(t *testing.T, o *unstructured.Unstructured) *appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	fromUnstructured(t, o, &d)
	if len(d.Spec.Template.Spec.Containers) == 0 {
		t.Fatalf("Deployment %s has no containers", d.Name)
	}
	return &d
}

func fromUnstructured(t *testing.T, o *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, into, true); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

func envOf(c corev1.Container) map[string]corev1.EnvVar {
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	return env
}

func diffPaths(a, b Tree) []string {
	var diff []string
	for p := range a {
		if !bytes.Equal(a[p], b[p]) {
			diff = append(diff, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			diff = append(diff, p)
		}
	}
	return diff
}

func BenchmarkGenerate(b *testing.B) {
	p := prodParams()
	for b.Loop() {
		if _, err := Generate(p); err != nil {
			b.Fatal(err)
		}
	}
}

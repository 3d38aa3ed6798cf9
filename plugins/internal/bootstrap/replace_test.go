package bootstrap

import (
	"strings"
	"testing"
)

// Why a Retry of a worker's failed bootstrap keeps the relay nonce
// (awsprovider's vanilla.retry): the Auto Scaling group's replacement
// boots the same user_data, so it joins through the same relay, where
// member 0's marker stays and the control plane's hourly refresh-join
// keeps the join data fresh; it publishes its own marker beside the
// failed one's. A worker told another nonce, as a rotated relay would
// tell it, waits on a path no control plane writes and fails.
func TestAReplacedWorkerJoinsThroughTheSameRelay(t *testing.T) {
	r := newRelay(t)
	res := r.run(
		node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10"},
		node{name: "w0", variant: "single_worker", ip: "10.0.1.20", failJoin: true},
	)
	requireExit(t, res, "cp0", 0)
	requireExit(t, res, "w0", 1)
	if m := r.marker(WorkerParameter(testClusterID, "i-w0")); m.State != Failed || m.Step != "kubeadm-join" {
		t.Fatalf("the failed worker's marker = %+v, want failed at kubeadm-join", m)
	}

	// Later (past the first token's 2 h) the control plane's timer ran.
	res = r.run(node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10", args: []string{"refresh-join"}})
	requireExit(t, res, "cp0", 0)

	res = r.run(
		node{name: "w1", variant: "single_worker", ip: "10.0.1.21"},  // the replacement
		node{name: "w2", variant: "rotated_worker", ip: "10.0.1.22"}, // a replacement of a rotated relay
	)
	requireExit(t, res, "w1", 0)
	if m := r.marker(WorkerParameter(testClusterID, "i-w1")); m.State != Joined {
		t.Errorf("the replacement's marker = %+v, want joined", m)
	}
	evs := r.events()
	if args := evs[index(t, evs, "w1", "kubeadm-join-start")].args; !strings.Contains(args, `token: "fedcba.9876543210fedcba"`) {
		t.Errorf("the replacement joined with %q, want the token refresh-join published", args)
	}
	requireExit(t, res, "w2", 1)
	m := r.marker(PrefixWithNonce(testClusterID, "r0tated") + "/workers/i-w2")
	if m.State != Failed || m.Step != "wait-for-control-plane" {
		t.Errorf("the worker of a rotated relay: marker %+v, want failed waiting for member 0 (nothing publishes under a new nonce)", m)
	}
	for _, e := range evs {
		if e.node == "w2" && strings.HasPrefix(e.name, "kubeadm-join") {
			t.Errorf("the worker of a rotated relay ran %s", e.name)
		}
	}
}

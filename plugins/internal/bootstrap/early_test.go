package bootstrap

import (
	"strings"
	"testing"
)

// A node that fails before Kubernetes is installed still reports it: the
// AWS CLI comes first, so the failure marker can be written.
func TestEarlyFailureIsReportedOnTheRelay(t *testing.T) {
	r := newRelay(t)
	res := r.run(node{name: "cp0", variant: "cp0", ip: "10.0.1.10", env: []string{"STUB_BAD_CHECKSUM=1"}})
	requireExit(t, res, "cp0", 1)
	m := r.marker(MemberParameter(testClusterID, 0))
	if m.State != Failed || m.Step != "install-containerd" || !strings.Contains(m.Reason, "does not match its published sha256") {
		t.Errorf("marker = %+v, want a failure at install-containerd naming the checksum", m)
	}
	evs := r.events()
	snap := index(t, evs, "cp0", "snap")
	for i, e := range evs {
		if e.node == "cp0" && e.name == "apt-get" && i < snap {
			t.Errorf("apt-get ran (event %d) before the AWS CLI was installed (event %d)", i, snap)
		}
	}
	if n := count(evs, "kubeadm-init-start"); n != 0 {
		t.Errorf("kubeadm init ran after containerd failed its checksum")
	}
}

// containerd's cgroup setting is checked in its merged configuration: a
// config.toml that does not import the drop-in fails the node at once.
func TestContainerdCgroupSettingIsChecked(t *testing.T) {
	r := newRelay(t)
	res := r.run(node{name: "cp0", variant: "cp0", ip: "10.0.1.10", env: []string{"STUB_CONTAINERD_NO_IMPORTS=1"}})
	requireExit(t, res, "cp0", 1)
	m := r.marker(MemberParameter(testClusterID, 0))
	if m.State != Failed || m.Step != "configure-containerd" || !strings.Contains(m.Reason, "SystemdCgroup") {
		t.Errorf("marker = %+v, want a failure at configure-containerd naming SystemdCgroup", m)
	}
}

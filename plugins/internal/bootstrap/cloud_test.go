package bootstrap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
)

// privateDNSName is the name the stub metadata service gives a node with
// private IP ip, as EC2 does with IP-based instance names.
func privateDNSName(ip string) string {
	return "ip-" + strings.ReplaceAll(ip, ".", "-") + ".eu-north-1.compute.internal"
}

// Every kubelet runs with --cloud-provider=external and every node
// registers under its private DNS name: the AWS cloud controller manager
// finds a node's instance by that name, and without the flag it never
// initializes nodes (no provider ID, zone or load balancer targets).
func TestNodesUseTheExternalCloudProviderUnderTheirPrivateDNSName(t *testing.T) {
	r := newRelay(t)
	res := r.run(
		node{name: "w0", variant: "single_worker", ip: "10.0.1.20"},
		node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10"},
	)
	requireExit(t, res, "cp0", 0)
	requireExit(t, res, "w0", 0)
	evs := r.events()
	for n, ip := range map[string]string{"cp0": "10.0.1.10", "w0": "10.0.1.20"} {
		env, err := os.ReadFile(filepath.Join(res[n].root, "etc/default/kubelet"))
		if err != nil || strings.TrimSpace(string(env)) != "KUBELET_EXTRA_ARGS=--cloud-provider=external" {
			t.Errorf("%s: /etc/default/kubelet = %q (%v), want KUBELET_EXTRA_ARGS=--cloud-provider=external", n, env, err)
		}
		name := map[string]string{"cp0": "kubeadm-init-start", "w0": "kubeadm-join-start"}[n]
		if args := evs[index(t, evs, n, name)].args + " "; !strings.Contains(args, ` name: "`+privateDNSName(ip)+`" `) {
			t.Errorf("%s: kubeadm configuration %q, want nodeRegistration name %s", n, args, privateDNSName(ip))
		}
	}
	// The kubelet must not start before it has the flag.
	for _, e := range evs {
		if e.name == "systemctl" && strings.Contains(e.args, "kubelet") {
			break
		}
		if e.name == "kubeadm-init-start" || e.name == "kubeadm-join-start" {
			t.Fatalf("%s ran kubeadm before systemctl started the kubelet", e.node)
		}
	}
}

// Member 0 installs the cloud controller manager and the EBS CSI driver
// after the pod network and before it reports ready: the nodes' uninitialized
// taint keeps everything else (Flux included) from scheduling until the
// cloud controller runs, so the GitOps tree cannot install it. Both run on
// the control planes on the host network, where the instance metadata
// service (hop limit 1) gives them the control-plane role.
func TestMemberZeroInstallsTheCloudControllerAndTheEBSDriver(t *testing.T) {
	r := newRelay(t)
	res := r.run(node{name: "cp0", variant: "single_cp0", ip: "10.0.1.10"})
	requireExit(t, res, "cp0", 0)
	root := res["cp0"].root
	var applied []int
	evs := r.events()
	for i, e := range evs {
		if e.node == "cp0" && e.name == "kubectl" && strings.Contains(e.args, " apply ") && !strings.HasSuffix(e.args, "/manager.yaml") {
			applied = append(applied, i)
		}
	}
	work := root + "/var/lib/kubeopera/"
	want := []string{"apply -f " + work + "cni.yaml", "apply -k " + work + "cloud-controller", "apply -k " + work + "ebs-csi-driver"}
	if len(applied) != len(want) {
		t.Fatalf("member 0 applied %d manifests, want %v", len(applied), want)
	}
	for i, at := range applied {
		if !strings.HasSuffix(evs[at].args, want[i]) {
			t.Errorf("apply %d = %q, want %s", i, evs[at].args, want[i])
		}
	}
	ready := -1
	for i, e := range evs {
		if e.name == "aws-put" && strings.HasPrefix(e.args, MemberParameter(testClusterID, 0)+" ") {
			ready = i
		}
	}
	if ready < applied[2] {
		t.Errorf("member 0 reported ready (event %d) before it installed the EBS driver (event %d)", ready, applied[2])
	}

	ebs := read(t, filepath.Join(work, "ebs-csi-driver/kustomization.yaml"))
	for _, line := range []string{
		"- " + upstream.EBSCSIDriver.Source + "?ref=" + upstream.EBSCSIDriver.Version,
		"    - op: add\n      path: /spec/template/spec/hostNetwork\n      value: true",
		"      path: /spec/template/spec/nodeSelector/node-role.kubernetes.io~1control-plane",
		"        type: Recreate",
		"      path: /spec/template/spec/containers/0/args/-\n      value: --k8s-tag-cluster-id=kubeopera-" + testClusterID,
		// upstream's overlay at v1.64.0 still names image v1.63.1.
		"images:\n- name: public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver\n  newTag: " + upstream.EBSCSIDriver.Version,
	} {
		if !strings.Contains(ebs, line+"\n") {
			t.Errorf("EBS driver kustomization lacks %q:\n%s", line, ebs)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

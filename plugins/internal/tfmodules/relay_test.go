package tfmodules

import (
	"io/fs"
	"strings"
	"testing"
)

// Every node's relay path carries a per-provision nonce fixed at creation,
// so a cluster re-created under the same ID never reads the last one's
// markers; the root outputs it for the plugin (settle, and the delete after
// a destroy) with the creation time settle's deadline counts from.
func TestRelayPathHasAPerProvisionNonce(t *testing.T) {
	files := computeModule(t)
	relay, _, _ := block(t, files, "resource", "terraform_data", "relay")
	for _, want := range []string{`nonce      = substr(replace(uuid(), "-", ""), 0, 12)`, "created_at = timestamp()", "ignore_changes = [input]"} {
		if !strings.Contains(relay, want) {
			t.Errorf("terraform_data.relay lacks %q:\n%s", want, relay)
		}
	}
	for _, call := range []string{"control_plane_user_data", "worker_user_data"} {
		if got := expr(t, files, "relay_nonce", "module", call); got != "terraform_data.relay.output.nonce" {
			t.Errorf("module %s: relay_nonce = %s", call, got)
		}
	}
	m, err := Vanilla(vanillaInput(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"module.compute.ssm_prefix", "module.compute.bootstrap_started_at", "module.compute.control_plane_instance_ids"} {
		if !strings.Contains(string(m.Files["main.tf"]), want) {
			t.Errorf("root outputs lack %s", want)
		}
	}
}

// IAM names are account-wide: a prefix with the region and a random suffix
// (name_prefix) instead of a fixed name; nodes can be reached with Session
// Manager.
func TestIAMNamesDoNotCollideAndNodesHaveSessionManager(t *testing.T) {
	files := computeModule(t)
	_, prefix := local(t, files, "iam_prefix")
	if !strings.Contains(prefix, "${var.region}") {
		t.Errorf("iam_prefix = %s, want the region in it", prefix)
	}
	for _, r := range [][2]string{{"aws_iam_role", "control_plane"}, {"aws_iam_role", "worker"},
		{"aws_iam_instance_profile", "control_plane"}, {"aws_iam_instance_profile", "worker"}} {
		_, b, _ := block(t, files, "resource", r[0], r[1])
		if _, fixed := b.Body.Attributes["name"]; fixed {
			t.Errorf("%s.%s has a fixed name", r[0], r[1])
		}
		if _, ok := b.Body.Attributes["name_prefix"]; !ok {
			t.Errorf("%s.%s has no name_prefix", r[0], r[1])
		}
	}
	ssm, _, _ := block(t, files, "resource", "aws_iam_role_policy_attachment", "ssm_core")
	for _, want := range []string{"aws_iam_role.control_plane.name", "aws_iam_role.worker.name", "policy/AmazonSSMManagedInstanceCore"} {
		if !strings.Contains(ssm, want) {
			t.Errorf("ssm_core attachment lacks %s:\n%s", want, ssm)
		}
	}
	eks, err := fs.ReadFile(embedded, "modules/eks/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(eks), `name               = "${var.name}`) {
		t.Error("the EKS module still gives an IAM role a fixed, account-wide name")
	}
}

// The node image comes from Canonical's public SSM parameter, which exists
// in every partition, not from an owner ID that differs in GovCloud and
// China.
func TestUbuntuImageComesFromThePublicSSMParameter(t *testing.T) {
	files := computeModule(t)
	ami, _, _ := block(t, files, "data", "aws_ami", "ubuntu")
	if strings.Contains(ami, "owners") || !strings.Contains(ami, "data.aws_ssm_parameter.ubuntu_ami.insecure_value") {
		t.Errorf("aws_ami.ubuntu looks the image up by owner, not by the SSM parameter:\n%s", ami)
	}
	if got := expr(t, files, "name", "data", "aws_ssm_parameter", "ubuntu_ami"); !strings.HasPrefix(got, `"/aws/service/canonical/ubuntu/server/24.04/stable/current/${local.arch}/`) {
		t.Errorf("ubuntu_ami parameter = %s", got)
	}
}

// The admin kubeconfig is encrypted with the cluster's own KMS key, which
// only the control planes may encrypt with and readers must be granted.
func TestKubeconfigHasItsOwnKMSKey(t *testing.T) {
	files := computeModule(t)
	if got := expr(t, files, "kubeconfig_kms_key", "module", "control_plane_user_data"); got != "aws_kms_key.kubeconfig.arn" {
		t.Errorf("control planes get kubeconfig_kms_key = %s", got)
	}
	policy, _, _ := block(t, files, "data", "aws_iam_policy_document", "kubeconfig_key")
	for _, want := range []string{"identifiers = [aws_iam_role.control_plane.arn]", `actions   = ["kms:Encrypt", "kms:GenerateDataKey"]`} {
		if !strings.Contains(policy, want) {
			t.Errorf("key policy lacks %s:\n%s", want, policy)
		}
	}
	if strings.Contains(policy, "aws_iam_role.worker") {
		t.Error("workers may use the kubeconfig key")
	}
}

package awsprovider

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// day2World is a provisioned cluster of one AWS plugin: the real
// terraform applying the offline stand-in of the plugin's modules
// (plugin_test/testdata/tfmodules, the same inputs and outputs) with its
// state in the kubernetes backend of a sandbox API server, and the real
// AWS SDK against the loopback fakes for the preflight.
type day2World struct {
	aws     *fakeaws.Server
	sb      *sandbox.Sandbox
	creds   sdk.Credentials
	inputs  map[string]string
	modules string // the stand-in module tree
	id      string
	p       *Provider
}

func newDay2World(t *testing.T, flavour string, p func() *Provider, inputs map[string]string) *day2World {
	t.Helper()
	w := &day2World{aws: fakeAWS(t), sb: managementCluster(t), modules: t.TempDir(), id: "c-" + flavour, inputs: inputs}
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "plugin_test", "testdata", "tfmodules", flavour, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.modules, "main.tf"), src, 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{envState: w.sb.KubeconfigPath, envDir: t.TempDir(), envModuleDir: w.modules,
		"TF_CLI_CONFIG_FILE": "/dev/null", "CHECKPOINT_DISABLE": "1"} {
		t.Setenv(k, v)
	}
	user := w.aws.IAM.AddUser("123456789012", "kubeopera")
	w.creds = sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}
	w.p = p()
	op, err := w.p.Provision(context.Background(), sdk.ProvisionRequest{ClusterID: w.id, Inputs: inputs, Credentials: w.creds})
	if err != nil {
		t.Fatal(err)
	}
	w.follow(t, w.p, op.ID, sdk.Running) // terraform done; vanilla then waits for its machines
	return w
}

// follow calls Status until the operation is neither pending nor
// running, or (with until Running) until terraform's share is done.
func (w *day2World) follow(t *testing.T, p *Provider, op string, until sdk.State) sdk.OperationStatus {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := p.Status(context.Background(), sdk.StatusRequest{OperationID: op, Credentials: w.creds})
		if err != nil {
			t.Fatalf("Status(%s): %v", op, err)
		}
		final := st.State == sdk.Succeeded || st.State == sdk.Failed
		if final || until == sdk.Running && st.Progress >= terraformShare {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("Status(%s) still %s after a minute: %s", op, st.State, st.Message)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// update starts req twice (the same operation both times) and follows it.
func (w *day2World) update(t *testing.T, req sdk.UpdateRequest) (string, sdk.OperationStatus) {
	t.Helper()
	req.ClusterID, req.Inputs, req.Credentials = w.id, w.inputs, w.creds
	op, err := w.p.Update(context.Background(), req)
	if err != nil {
		t.Fatalf("Update(%d nodes, %q): %v", req.NodeCount, req.KubernetesVersion, err)
	}
	again, err := EKS("restarted").Update(context.Background(), req)
	if err != nil || again.ID != op.ID {
		t.Errorf("the same Update again (another provider instance) gave %q, %v; want %q", again.ID, err, op.ID)
	}
	return op.ID, w.follow(t, w.p, op.ID, sdk.Succeeded)
}

// output reads a root output from the state in the kubernetes backend.
func (w *day2World) output(t *testing.T, name string) string {
	t.Helper()
	kube, err := terraform.NewKube(w.sb.Config)
	if err != nil {
		t.Fatal(err)
	}
	out, err := terraform.StateOutputs(context.Background(), kube, terraform.DefaultNamespace, terraform.StateSuffix(w.id))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(out[name], &v); err != nil {
		t.Fatalf("output %s = %s: %v", name, out[name], err)
	}
	return strings.TrimSuffix(strings.TrimSuffix(jsonText(v), ".0"), "\n")
}

func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var eksInputs = map[string]string{"region": "eu-north-1", "credentialRef": "cred-1", "apiAllowedCIDRs": "203.0.113.0/24",
	"nodeCount": "2", "kubernetesVersion": "1.35"}

// A scale is one more apply of the cluster's own root on its state: 2 → 3
// → 2 nodes in the state, each reported with the count. A count beyond
// the schema or the vCPU quota is refused by field before terraform runs;
// a failed apply leaves the state as it was and names terraform's reason.
func TestEKSScaleReappliesTheClusterWithTheNewNodeCount(t *testing.T) {
	w := newDay2World(t, "eks", func() *Provider { return EKS("test") }, eksInputs)
	for _, n := range []int{3, 2} {
		_, st := w.update(t, sdk.UpdateRequest{NodeCount: n})
		if st.State != sdk.Succeeded || st.NodeCount != n || st.KubernetesVersion != "1.35" {
			t.Fatalf("scale to %d ended %s (%d nodes, %q): %s", n, st.State, st.NodeCount, st.KubernetesVersion, st.Message)
		}
		if got := w.output(t, "node_count"); got != itoa(n) {
			t.Errorf("after scaling to %d the state's node group has %s nodes", n, got)
		}
	}
	ctx := context.Background()
	for _, tc := range []struct {
		nodes int
		want  string
	}{{101, "must be"}, {20, "quota of 32"}} {
		_, err := w.p.Update(ctx, sdk.UpdateRequest{ClusterID: w.id, Inputs: w.inputs, Credentials: w.creds, NodeCount: tc.nodes})
		if f := sdk.FieldErrors(err); len(f) != 1 || f[0].Field != "nodeCount" || !strings.Contains(f[0].Message, tc.want) {
			t.Errorf("scaling to %d nodes: %v; want it refused naming nodeCount (%q)", tc.nodes, err, tc.want)
		}
	}
	if err := os.WriteFile(filepath.Join(w.modules, "capacity.auto.tfvars"), []byte("max_nodes = 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	op, err := w.p.Update(ctx, sdk.UpdateRequest{ClusterID: w.id, Inputs: w.inputs, Credentials: w.creds, NodeCount: 5})
	if err != nil {
		t.Fatal(err)
	}
	st := w.follow(t, w.p, op.ID, sdk.Succeeded)
	if st.State != sdk.Failed || !strings.Contains(st.Message, "InsufficientInstanceCapacity") || !strings.Contains(st.Message, "update-3") {
		t.Errorf("an apply EC2 refuses ended %s: %q; want FAILED with terraform's reason and the run to read", st.State, st.Message)
	}
	if got := w.output(t, "node_count"); got != "2" {
		t.Errorf("after the failed scale the state's node group has %s nodes, want the 2 it had", got)
	}
}

// An upgrade is two applies: the control plane moves first while the node
// group stays on its minor (the state shows both between the steps), then
// the node group. A provider instance that did not start the change
// carries it on from the record. A skipped minor, a downgrade and a minor
// EKS does not offer (or offers no pinned EBS CSI add-on for) are refused
// by field.
func TestEKSUpgradeMovesTheControlPlaneBeforeTheNodeGroup(t *testing.T) {
	w := newDay2World(t, "eks", func() *Provider { return EKS("test") }, eksInputs)
	ctx := context.Background()
	refused := func(version, want string) {
		t.Helper()
		_, err := w.p.Update(ctx, sdk.UpdateRequest{ClusterID: w.id, Inputs: w.inputs, Credentials: w.creds, KubernetesVersion: version})
		if f := sdk.FieldErrors(err); len(f) != 1 || f[0].Field != "kubernetesVersion" || !strings.Contains(f[0].Message, want) {
			t.Errorf("an upgrade to %s: %v; want it refused naming kubernetesVersion (%q)", version, err, want)
		}
	}
	refused("1.37", "skips a minor")
	w.aws.EKS.SetAddonVersions(fakeaws.AddonVersion{Addon: "aws-ebs-csi-driver", Version: "v1.64.0-eksbuild.1", Minors: []string{"1.35"}})
	refused("1.36", "aws-ebs-csi-driver")
	w.aws.EKS.SetAddonVersions(fakeaws.DefaultAddonVersions...)
	w.aws.EKS.SetVersions(fakeaws.ClusterVersion{Version: "1.36", Status: fakeaws.ExtendedSupport},
		fakeaws.ClusterVersion{Version: "1.35", Status: fakeaws.StandardSupport})
	refused("1.36", "extended support")
	w.aws.EKS.SetVersions(fakeaws.DefaultClusterVersions...)

	op, err := w.p.Update(ctx, sdk.UpdateRequest{ClusterID: w.id, Inputs: w.inputs, Credentials: w.creds, KubernetesVersion: "1.36"})
	if err != nil {
		t.Fatal(err)
	}
	// Only Status starts step 2: wait for step 1's own run to end.
	runs := terraform.Local{Dir: os.Getenv(envDir)}
	var step1 terraform.Status
	deadline := time.Now().Add(time.Minute)
	for step1.State != sdk.Succeeded && step1.State != sdk.Failed && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		step1, _ = runs.GenerationStatus(ctx, w.id, 1)
	}
	if step1.State != sdk.Succeeded {
		t.Fatalf("step 1 ended %s: %s", step1.State, step1.Message)
	}
	if cp, nodes := w.output(t, "control_plane_version"), w.output(t, "node_version"); cp != "1.36" || nodes != "1.35" {
		t.Fatalf("between the steps the state has control plane %s and nodes %s; want 1.36 and 1.35", cp, nodes)
	}
	st := w.follow(t, EKS("restarted"), op.ID, sdk.Succeeded)
	if st.State != sdk.Succeeded || st.KubernetesVersion != "1.36" || !strings.Contains(st.Message, "2 terraform applies") {
		t.Fatalf("the upgrade ended %s (%q): %s", st.State, st.KubernetesVersion, st.Message)
	}
	if cp, nodes := w.output(t, "control_plane_version"), w.output(t, "node_version"); cp != "1.36" || nodes != "1.36" {
		t.Errorf("after the upgrade the state has control plane %s and nodes %s; want 1.36 for both", cp, nodes)
	}
	refused("1.35", "cannot be downgraded")
	if again, err := w.p.Update(ctx, sdk.UpdateRequest{ClusterID: w.id, Inputs: w.inputs, Credentials: w.creds,
		KubernetesVersion: "1.36"}); err != nil || again.ID != op.ID {
		t.Errorf("the same upgrade again: %q, %v; want the same operation %q", again.ID, err, op.ID)
	}
}

// aws-vanilla scales its workers' Auto Scaling Group and is done when that
// many workers have joined; it refuses any version change.
func TestVanillaScaleWaitsForTheWorkersAndRefusesUpgrades(t *testing.T) {
	inputs := map[string]string{"region": "eu-north-1", "credentialRef": "cred-1", "apiAllowedCIDRs": "203.0.113.0/24", "nodeCount": "1"}
	w := newDay2World(t, "vanilla", func() *Provider { return Vanilla("test") }, inputs)
	w.aws.SSM.Put("/kubeopera/c-vanilla/members/0", "String", "ready")
	w.aws.SSM.Put("/kubeopera/c-vanilla/workers/i-01", "String", "joined")
	ctx := context.Background()
	_, err := w.p.Update(ctx, sdk.UpdateRequest{ClusterID: w.id, Inputs: inputs, Credentials: w.creds, KubernetesVersion: "1.37"})
	if !errors.Is(err, sdk.ErrUnimplemented) {
		t.Errorf("a vanilla upgrade: %v, want Unimplemented", err)
	}
	op, err := w.p.Update(ctx, sdk.UpdateRequest{ClusterID: w.id, Inputs: inputs, Credentials: w.creds, NodeCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := w.follow(t, w.p, op.ID, sdk.Running)
	if st.State != sdk.Running || !strings.Contains(st.Message, "1 of 2 workers joined") {
		t.Fatalf("after the apply: %s %q; want RUNNING waiting for the second worker", st.State, st.Message)
	}
	if got := w.output(t, "worker_count"); got != "2" {
		t.Errorf("the state's worker group has size %s, want 2", got)
	}
	w.aws.SSM.Put("/kubeopera/c-vanilla/workers/i-02", "String", "joined")
	if st := w.follow(t, w.p, op.ID, sdk.Succeeded); st.State != sdk.Succeeded || st.NodeCount != 2 {
		t.Errorf("after the second worker joined: %s, %d nodes: %s", st.State, st.NodeCount, st.Message)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

package awsprovider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/bootstrap"
	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// Vanilla is the aws-vanilla plugin: kubeadm on EC2, bootstrapped from
// user_data through an SSM Parameter Store relay.
func Vanilla(version string) *Provider {
	return &Provider{opts: Options{Name: "aws-vanilla", DisplayName: "AWS (kubeadm on EC2)", Topology: "kubeadm",
		Version: version, ControlPlane: true, MinNodes: 0, Versions: VanillaVersions},
		flavour: vanilla{kubeconfigWait: 40 * time.Second}}
}

type vanilla struct {
	// kubeconfigWait bounds one Kubeconfig call's wait for the parameter,
	// below the host's per-call deadline; the host calls again.
	kubeconfigWait time.Duration
	// clock is time.Now unless a test sets it.
	clock func() time.Time
}

func (v vanilla) now() time.Time {
	if v.clock != nil {
		return v.clock()
	}
	return time.Now()
}

func (vanilla) module(id string, in map[string]string, at placement) (terraform.Module, error) {
	cp, _ := strconv.Atoi(in["controlPlaneCount"])
	nodes, _ := strconv.Atoi(in["nodeCount"])
	minor, patch, err := VanillaVersions.Resolve(in["kubernetesVersion"])
	if err != nil {
		return terraform.Module{}, err
	}
	cidrs, err := AllowedCIDRs(in[inputAllowedCIDRs])
	if err != nil {
		return terraform.Module{}, err
	}
	return tfmodules.Vanilla(tfmodules.VanillaInput{ClusterID: id, Region: in["region"], ControlPlaneCount: cp,
		NodeCount: nodes, InstanceType: in["instanceType"], KubernetesVersion: minor, KubernetesPatch: patch,
		APIAllowedCIDRs: cidrs, AssumeRole: at.role, ZoneIDs: at.zoneIDs})
}

// bootstrapFailed is the class of a node's failed bootstrap: a person
// retries it, since a Retry replaces the failed instances, which are
// billed, and the same fault (a bad image, a blocked endpoint) would fail
// the new ones too. UserFixable is the class the host never retries
// unattended.
const bootstrapFailed = sdk.UserFixable

// settleTimeout bounds the wait for the control planes' bootstrap, from
// when the machines were created: the nodes' own relay wait (an hour) plus
// the time terraform and the install take. Past it the operation fails
// instead of waiting forever for a node that died before it could report.
const settleTimeout = 90 * time.Minute

// relayPrefix is the provision's relay path: the ssm_prefix output (with
// its nonce), or the nonce-less path of a module tree without it.
func relayPrefix(clusterID string, outputs map[string]json.RawMessage) string {
	if p, err := outputString(outputs, "ssm_prefix"); err == nil && strings.HasPrefix(p, bootstrap.Prefix(clusterID)) {
		return p
	}
	return bootstrap.Prefix(clusterID)
}

// relay is what a destroy deletes: only a path with a nonce, one
// provision's own.
func (vanilla) relay(clusterID string, outputs map[string]json.RawMessage) string {
	if p := relayPrefix(clusterID, outputs); strings.HasPrefix(p, bootstrap.Prefix(clusterID)+"/") {
		return p
	}
	return ""
}

// settle follows the bootstrap on the relay: member 0 runs kubeadm init,
// each further member joins after its predecessor, then the requested
// workers join (settleWorkers). A node that published a failure ends the
// operation with its step; one silent past the deadline ends it too.
func (v vanilla) settle(ctx context.Context, cfg aws.Config, op operation, outputs map[string]json.RawMessage) (*sdk.OperationStatus, error) {
	client := awsapi.NewSSM(cfg)
	prefix := relayPrefix(op.ClusterID, outputs)
	n := max(op.ControlPlanes, 1)
	for i := range n {
		name := bootstrap.MemberUnder(prefix, i)
		marker, err := client.GetParameter(ctx, name, false)
		switch {
		case awsapi.IsParameterNotFound(err):
			return v.waiting(op, outputs, i, n), nil
		case err != nil:
			return &sdk.OperationStatus{State: sdk.Running, Progress: terraformShare,
				Message: fmt.Sprintf("machines created; reading bootstrap progress from %s failed, retrying: %v", name, err)}, nil
		}
		m, err := bootstrap.ParseMarker(marker)
		if err != nil {
			return nil, fmt.Errorf("bootstrap marker %s: %w", name, err)
		}
		if m.State == bootstrap.Failed {
			return &sdk.OperationStatus{State: sdk.Failed, ErrorClass: bootstrapFailed,
				Message: fmt.Sprintf("control plane %d of %d failed its bootstrap at step %s: %s (its log is /var/log/kubeopera/bootstrap.log on %s)",
					i+1, n, m.Step, m.Reason, instance(outputs, i))}, nil
		}
	}
	return v.settleWorkers(ctx, cfg, client, op, outputs, prefix)
}

// waiting reports member i still bootstrapping, or failed once the
// deadline from bootstrap_started_at has passed.
func (v vanilla) waiting(op operation, outputs map[string]json.RawMessage, i, n int) *sdk.OperationStatus {
	step := "kubeadm init"
	if i > 0 {
		step = "kubeadm join --control-plane"
	}
	if v.pastDeadline(op, outputs) {
		return &sdk.OperationStatus{State: sdk.Failed, ErrorClass: bootstrapFailed,
			Message: fmt.Sprintf("control plane %d of %d never reported its bootstrap (%s) within %s of the machines' creation: "+
				"it failed before it could report or cannot reach SSM; read /var/log/kubeopera/bootstrap.log on %s "+
				"(aws ssm start-session --target <instance>)", i+1, n, step, settleTimeout, instance(outputs, i))}
	}
	return &sdk.OperationStatus{State: sdk.Running, Progress: terraformShare + (100-terraformShare)*i/n,
		Message: fmt.Sprintf("machines created; control plane %d of %d bootstrapping (%s)", i+1, n, step)}
}

// pastDeadline reports whether settleTimeout has passed since the
// machines were created (bootstrap_started_at) or, for an update, since
// it started: the workers a scale adds are that much younger.
func (v vanilla) pastDeadline(op operation, outputs map[string]json.RawMessage) bool {
	if !op.Started.IsZero() {
		return v.now().After(op.Started.Add(settleTimeout))
	}
	started, err := outputString(outputs, "bootstrap_started_at")
	if err != nil {
		return false
	}
	t, err := time.Parse(time.RFC3339, started)
	return err == nil && v.now().After(t.Add(settleTimeout))
}

// instance names member i's EC2 instance from the outputs, if known.
func instance(outputs map[string]json.RawMessage, i int) string {
	var ids []string
	if json.Unmarshal(outputs["control_plane_instance_ids"], &ids) == nil && i < len(ids) {
		return "instance " + ids[i]
	}
	return "the instance"
}

// kubeconfig waits for the kubeconfig the control planes publish (a
// 2-hour token of the kubeopera-manager ServiceAccount, renewed every 30
// minutes) and returns it with the token's expiry, so the host asks again
// before it runs out. A token about to expire means no control plane
// renewed it: that is reported, not handed out.
func (v vanilla) kubeconfig(ctx context.Context, cfg aws.Config, _ operation, outputs map[string]json.RawMessage) (sdk.Kubeconfig, error) {
	name, err := outputString(outputs, "kubeconfig_parameter")
	if err != nil {
		return sdk.Kubeconfig{}, err
	}
	value, err := awsapi.WaitParameter(ctx, awsapi.NewSSM(cfg), name, 2*time.Second, v.kubeconfigWait)
	var timeout *awsapi.WaitTimeoutError
	if errors.As(err, &timeout) {
		return sdk.Kubeconfig{}, sdk.Unavailable("the manager kubeconfig is not published at %s yet (waited %s); the host retries", name, timeout.Waited.Round(time.Second))
	}
	if err != nil {
		return sdk.Kubeconfig{}, err
	}
	exp, ok, err := tokenExpiry([]byte(value))
	if err != nil {
		return sdk.Kubeconfig{}, sdk.FailedPrecondition("parameter %s: %v", name, err)
	}
	if ok && exp.Before(v.now().Add(minTokenLife)) {
		return sdk.Kubeconfig{}, sdk.Unavailable("the token published at %s expires at %s and no control plane has renewed it: "+
			"check the kubeopera-refresh-credential timer (journalctl -u kubeopera-refresh-credential, "+
			"/var/log/kubeopera/bootstrap.log) on the control planes", name, exp.UTC().Format(time.RFC3339))
	}
	return sdk.Kubeconfig{Data: []byte(value), ExpiresAt: exp}, nil
}

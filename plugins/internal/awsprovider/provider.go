package awsprovider

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// flavour is what tells aws-vanilla from aws-eks in the lifecycle: the
// module a request runs, what must happen after terraform before the
// cluster is usable, and how its kubeconfig is made.
type flavour interface {
	module(clusterID string, in map[string]string, at placement) (terraform.Module, error)
	// settle reports on the cluster once terraform apply succeeded (a
	// bootstrap still running on the machines, say); nil when it is done.
	settle(ctx context.Context, cfg aws.Config, op operation, outputs map[string]json.RawMessage) (*sdk.OperationStatus, error)
	// relay is the SSM path of a cluster's own parameters that a destroy
	// deletes after terraform, from the state's outputs; "" for none.
	relay(clusterID string, outputs map[string]json.RawMessage) string
	kubeconfig(ctx context.Context, cfg aws.Config, op operation, outputs map[string]json.RawMessage) (sdk.Kubeconfig, error)
	// retry does what a Provision asked again after its apply succeeded
	// but settle failed: it replaces what failed and returns the
	// operation to follow, or refuses saying what to do instead.
	retry(ctx context.Context, cfg aws.Config, op operation, outputs map[string]json.RawMessage) (operation, error)
	// resume is op as the last retry left it (its start), for a
	// Provision asked again after that retry; op itself when none.
	resume(ctx context.Context, cfg aws.Config, op operation, outputs map[string]json.RawMessage) (operation, error)
}

// Provider is one AWS provider plugin (Vanilla or EKS): Info and Validate
// from its options, the lifecycle through the shared Terraform runner.
type Provider struct {
	opts      Options
	flavour   flavour
	executor  executors
	sweepLogs sweepLogs // also the client of the day-2 records
}

// GetInfo describes the provider.
func (p *Provider) GetInfo(context.Context) (sdk.Info, error) {
	return sdk.Info{
		Name:            p.opts.Name,
		DisplayName:     p.opts.DisplayName,
		Cloud:           "aws",
		Topologies:      []string{p.opts.Topology},
		Availability:    sdk.Available,
		PluginVersion:   p.opts.Version,
		Schema:          Schema(p.opts),
		Capabilities:    p.capabilities(),
		RegionInput:     "region",
		CredentialKinds: CredentialKinds(),
		ClusterSource:   clusterSource(p.opts),
		NodeCountInput:  "nodeCount",
		VersionInput:    "kubernetesVersion",
		Upgrades:        p.upgrades(),
	}, nil
}

// capabilities: both plugins scale; only EKS upgrades (a kubeadm upgrade
// needs one control plane at a time with etcd checked in between and the
// workers drained and replaced, which a re-apply cannot do; docs/aws.md).
func (p *Provider) capabilities() []sdk.Capability {
	caps := []sdk.Capability{sdk.CapValidate, sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy, sdk.CapScale,
		sdk.CapEstimate}
	if !p.opts.ControlPlane {
		caps = append(caps, sdk.CapUpgrade)
	}
	return caps
}

// upgrades lists, for an upgrading plugin, each minor of its version table
// with the next one when the table has it: one minor at a time.
func (p *Provider) upgrades() []sdk.Upgrade {
	if p.opts.ControlPlane {
		return nil
	}
	var out []sdk.Upgrade
	minors := p.opts.Versions.Minors()
	for _, from := range minors {
		if next := nextMinor(from); slices.Contains(minors, next) {
			out = append(out, sdk.Upgrade{From: from, To: []string{next}})
		}
	}
	return out
}

// nextMinor is "1.37" for "1.36"; "" for what is not a minor version.
func nextMinor(minor string) string {
	major, m, ok := strings.Cut(minor, ".")
	n, err := strconv.Atoi(m)
	if !ok || err != nil {
		return ""
	}
	return major + "." + strconv.Itoa(n+1)
}

// Validate checks inputs and the credential's shape and then, unless
// KUBEOPERA_AWS_PREFLIGHT=off, proves the credential with
// sts:GetCallerIdentity and checks with AWS what only it knows (instance
// type and its zones, EKS version and add-on, vCPU quota: checkWithAWS)
// before anything is created. AWS endpoints follow the SDK's
// AWS_ENDPOINT_URL* variables.
func (p *Provider) Validate(ctx context.Context, req sdk.ValidateRequest) error {
	if err := sdk.InvalidInput(Validate(p.opts, req.Inputs, req.Credentials)...); err != nil {
		return err
	}
	if len(req.Credentials) == 0 || !preflightOn() {
		return nil
	}
	in := sdk.WithDefaults(Schema(p.opts), req.Inputs)
	cfg, err := awsapi.Config(ctx, req.Credentials, in["region"])
	if err != nil {
		return err
	}
	if _, err = awsapi.CallerIdentity(ctx, cfg); err != nil {
		return err
	}
	return p.checkWithAWS(ctx, cfg, in)
}

// clusterSource is the product's source of the clusters a plugin makes:
// self-managed control planes are "vanilla", managed ones EKS.
func clusterSource(o Options) string {
	if o.ControlPlane {
		return "provisioned_vanilla"
	}
	return "provisioned_eks"
}

// envPreflight turns the calls to AWS at Validate off when "off": for
// test suites and `kubeopera dev`, which must never reach AWS.
const envPreflight = "KUBEOPERA_AWS_PREFLIGHT"

func preflightOn() bool { return os.Getenv(envPreflight) != "off" }

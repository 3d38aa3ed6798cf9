package awsprovider

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// EKS is the aws-eks plugin: AWS runs the control plane, terraform creates
// the VPC, the cluster and a managed node group.
func EKS(version string) *Provider {
	return &Provider{opts: Options{Name: "aws-eks", DisplayName: "Amazon EKS", Topology: "eks", Version: version,
		MinNodes: 1, Versions: EKSVersions}, flavour: eks{}}
}

type eks struct{}

func (eks) module(id string, in map[string]string, at placement) (terraform.Module, error) {
	nodes, _ := strconv.Atoi(in["nodeCount"])
	minor, _, err := EKSVersions.Resolve(in["kubernetesVersion"])
	if err != nil {
		return terraform.Module{}, err
	}
	cidrs, err := AllowedCIDRs(in[inputAllowedCIDRs])
	if err != nil {
		return terraform.Module{}, err
	}
	return tfmodules.EKS(tfmodules.EKSInput{ClusterID: id, Region: in["region"], NodeCount: nodes,
		InstanceType: in["instanceType"], KubernetesVersion: minor, NodeVersion: in[inputNodeVersion], PublicAccess: in[inputPublicAccess] != "false",
		PrivateAccess: in[inputPrivateAccess] != "false", PublicAccessCIDRs: cidrs, AssumeRole: at.role, ZoneIDs: at.zoneIDs})
}

// settle has nothing to wait for: terraform apply returns once the cluster
// and its node group are ACTIVE.
func (eks) settle(context.Context, aws.Config, operation, map[string]json.RawMessage) (*sdk.OperationStatus, error) {
	return nil, nil
}

// retry has nothing to replace: settle never fails an EKS cluster.
func (eks) retry(_ context.Context, _ aws.Config, op operation, _ map[string]json.RawMessage) (operation, error) {
	return op, nil
}

// resume: there are no retries to resume from.
func (eks) resume(_ context.Context, _ aws.Config, op operation, _ map[string]json.RawMessage) (operation, error) {
	return op, nil
}

// relay: EKS clusters write nothing outside Terraform's state.
func (eks) relay(string, map[string]json.RawMessage) string { return "" }

// kubeconfig builds a kubeconfig from the cluster's endpoint and CA with a
// short-lived token (a presigned sts:GetCallerIdentity); the host refreshes
// it through this call before ExpiresAt.
func (eks) kubeconfig(ctx context.Context, cfg aws.Config, _ operation, outputs map[string]json.RawMessage) (sdk.Kubeconfig, error) {
	var v [3]string
	for i, name := range []string{"cluster_name", "endpoint", "certificate_authority_data"} {
		s, err := outputString(outputs, name)
		if err != nil {
			return sdk.Kubeconfig{}, err
		}
		v[i] = s
	}
	tok, err := awsapi.EKSToken(ctx, cfg, v[0])
	if err != nil {
		return sdk.Kubeconfig{}, err
	}
	data, err := awsapi.EKSKubeconfig(v[0], v[1], []byte(v[2]), tok)
	if err != nil {
		return sdk.Kubeconfig{}, sdk.FailedPrecondition("kubeconfig of EKS cluster %s: %v", v[0], err)
	}
	return sdk.Kubeconfig{Data: data, ExpiresAt: tok.Expiration}, nil
}

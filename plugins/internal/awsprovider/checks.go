package awsprovider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// kubeadm's preflight minimums for a control-plane node: 2 CPUs and
// 1700 MB of memory (the instance's MiB, less what the firmware keeps,
// must stay above it; 1.7 GiB is the margin used here).
const (
	minControlPlaneVCPUs  = 2
	minControlPlaneMemMiB = 1741
)

// checkWithAWS asks AWS what only AWS knows: that the instance type exists
// in the region with an architecture the node images have (and, for
// kubeadm control planes, kubeadm's minimum size), and for EKS that the
// version is in standard support there.
func (p *Provider) checkWithAWS(ctx context.Context, cfg aws.Config, in map[string]string) error {
	var errs []sdk.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, sdk.FieldError{Field: "inputs." + field, Message: fmt.Sprintf(format, args...)})
	}
	it, err := awsapi.DescribeInstanceType(ctx, cfg, in["instanceType"])
	switch {
	case errors.Is(err, awsapi.ErrNoSuchInstanceType):
		add("instanceType", "EC2 does not offer %s in %s; pick one it offers there, e.g. t3.medium", in["instanceType"], in["region"])
	case err != nil:
		return err
	default:
		errs = append(errs, instanceTypeProblems(p.opts, it)...)
	}
	if !p.opts.ControlPlane {
		minor, _, _ := p.opts.Versions.Resolve(in["kubernetesVersion"])
		status, err := awsapi.ClusterVersionStatus(ctx, cfg, minor)
		if err != nil {
			return err
		}
		switch status {
		case awsapi.StandardSupport:
		case awsapi.ExtendedSupport:
			add("kubernetesVersion", "EKS has Kubernetes %s in extended support only, billed at the extended-support rate; use %s",
				minor, p.opts.Versions.Default)
		default:
			add("kubernetesVersion", "EKS in %s does not offer Kubernetes %s for new clusters; use %s", in["region"], minor, p.opts.Versions.Default)
		}
	}
	return sdk.InvalidInput(errs...)
}

// instanceTypeProblems checks an instance type against what the nodes
// need: an x86_64 or arm64 image, and on kubeadm control planes 2 vCPUs
// and 1.7 GiB.
func instanceTypeProblems(o Options, it awsapi.InstanceType) []sdk.FieldError {
	var msgs []string
	if !slices.Contains(it.Architectures, "x86_64") && !slices.Contains(it.Architectures, "arm64") {
		msgs = append(msgs, fmt.Sprintf("%s is %s; the node images are x86_64 or arm64", it.Name, strings.Join(it.Architectures, "/")))
	}
	if o.ControlPlane && (it.VCPUs < minControlPlaneVCPUs || it.MemoryMiB < minControlPlaneMemMiB) {
		msgs = append(msgs, fmt.Sprintf("%s has %d vCPU and %d MiB; kubeadm control planes need at least %d vCPUs and 1.7 GiB (e.g. t3.small or t3.medium)",
			it.Name, it.VCPUs, it.MemoryMiB, minControlPlaneVCPUs))
	}
	if len(msgs) == 0 {
		return nil
	}
	return []sdk.FieldError{{Field: "inputs.instanceType", Message: strings.Join(msgs, "; ")}}
}

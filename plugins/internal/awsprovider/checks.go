package awsprovider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ochestra-tech/kubeopera/plugins/internal/addonschema"
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// kubeadm's preflight minimums for a control-plane node: 2 CPUs and
// 1700 MB of memory (the instance's MiB, less what the firmware keeps,
// must stay above it; 1.7 GiB is the margin used here).
const (
	minControlPlaneVCPUs  = 2
	minControlPlaneMemMiB = 1741
)

// preflight is what checkWithAWS found: the problems to report, and
// the checks it skipped because the credential may not make their call.
type preflight struct {
	errs    []sdk.FieldError
	skipped []*awsapi.DeniedError
}

func (f *preflight) add(field, format string, args ...any) {
	f.errs = append(f.errs, sdk.FieldError{Field: "inputs." + field, Message: fmt.Sprintf(format, args...)})
}

// skip records a check the credential may not make and returns nil, or
// returns err when it is any other failure.
func (f *preflight) skip(err error) error {
	var d *awsapi.DeniedError
	if errors.As(err, &d) {
		f.skipped = append(f.skipped, d)
		return nil
	}
	return err
}

// checkWithAWS asks AWS what only AWS knows before anything is created:
// that the instance type exists in the region with an architecture the
// node images have (and, for kubeadm control planes, kubeadm's minimum
// size) in as many zones as the cluster spans; for EKS, that the version
// is in standard support and the pinned EBS CSI add-on is offered for it;
// and that the nodes fit the account's vCPU quota.
//
// The EC2 calls are ones terraform makes too, so a credential refused them
// fails here as it would fail the apply. The EKS version, add-on and quota
// calls are Validate's own: a credential refused them has the check
// skipped, with a warning in the plugin's log naming the IAM action.
func (p *Provider) checkWithAWS(ctx context.Context, cfg aws.Config, in map[string]string) error {
	var f preflight
	it, err := awsapi.DescribeInstanceType(ctx, cfg, in["instanceType"])
	switch {
	case errors.Is(err, awsapi.ErrNoSuchInstanceType):
		f.add("instanceType", "EC2 does not offer %s in %s; pick one it offers there, e.g. t3.medium", in["instanceType"], in["region"])
	case err != nil:
		return err
	default:
		f.errs = append(f.errs, instanceTypeProblems(p.opts, it)...)
		if err := p.checkZones(ctx, cfg, in, &f); err != nil {
			return err
		}
		if err := f.skip(checkQuota(ctx, cfg, in, it, p.opts, &f)); err != nil {
			return err
		}
	}
	if !p.opts.ControlPlane {
		if err := f.skip(p.checkEKSVersion(ctx, cfg, in, &f)); err != nil {
			return err
		}
		if err := f.skip(p.checkEBSAddon(ctx, cfg, in, &f)); err != nil {
			return err
		}
	}
	return f.result()
}

// result logs the skipped checks and returns the problems found as one
// InvalidInput error (nil when there are none).
func (f *preflight) result() error {
	for _, d := range f.skipped {
		sdk.Logger().Warn("a preflight check was skipped: the credential may not make its call",
			"action", d.Action, "code", d.Code, "fix", "add "+d.Action+" to the credential's IAM policy (docs/aws.md)")
	}
	return sdk.InvalidInput(f.errs...)
}

// checkZones checks that EC2 offers the instance type in at least as
// many of the region's zones as the cluster spreads over (for EKS, not
// counting the zones EKS refuses).
func (p *Provider) checkZones(ctx context.Context, cfg aws.Config, in map[string]string, f *preflight) error {
	offered, err := awsapi.InstanceTypeZoneIDs(ctx, cfg, in["instanceType"])
	if err != nil {
		return err
	}
	zones := p.usableZones(offered)
	if len(zones) < tfmodules.DefaultAZCount {
		f.add("instanceType", "EC2 offers %s in %d availability zone(s) of %s (%s); the cluster spreads over %d: pick a type "+
			"offered in more zones, e.g. t3.medium", in["instanceType"], len(zones), in["region"], orNone(zones), tfmodules.DefaultAZCount)
	}
	return nil
}

// checkEKSVersion asks EKS whether the minor is in standard support in
// the region.
func (p *Provider) checkEKSVersion(ctx context.Context, cfg aws.Config, in map[string]string, f *preflight) error {
	minor, _, _ := p.opts.Versions.Resolve(in["kubernetesVersion"])
	status, err := awsapi.ClusterVersionStatus(ctx, cfg, minor)
	if err != nil {
		return err
	}
	switch status {
	case awsapi.StandardSupport:
	case awsapi.ExtendedSupport:
		f.add("kubernetesVersion", "EKS has Kubernetes %s in extended support only, billed at the extended-support rate; use %s",
			minor, p.opts.Versions.Default)
	default:
		f.add("kubernetesVersion", "EKS in %s does not offer Kubernetes %s for new clusters; use %s", in["region"], minor, p.opts.Versions.Default)
	}
	return nil
}

// checkEBSAddon asks EKS whether it offers the pinned EBS CSI add-on
// build for the minor: the apply would fail on it after the cluster and
// its nodes were made, some 20 minutes in.
func (p *Provider) checkEBSAddon(ctx context.Context, cfg aws.Config, in map[string]string, f *preflight) error {
	minor, _, _ := p.opts.Versions.Resolve(in["kubernetesVersion"])
	versions, err := awsapi.AddonVersions(ctx, cfg, "aws-ebs-csi-driver", minor)
	if err != nil {
		return err
	}
	if !slices.Contains(versions, upstream.EBSCSIAddon.Version) {
		f.add("kubernetesVersion", "EKS in %s offers no aws-ebs-csi-driver add-on %s for Kubernetes %s (it offers %s); this plugin "+
			"installs that build: pick a Kubernetes version it is offered for, or a KubeOpera release that pins another",
			in["region"], upstream.EBSCSIAddon.Version, minor, orNone(versions))
		return nil
	}
	if err := checkEBSAddonValues(ctx, cfg, in, minor, f); err != nil {
		return err
	}
	return checkCoreAddons(ctx, cfg, in, minor, f)
}

// checkCoreAddons asks EKS whether it offers the builds of vpc-cni,
// kube-proxy and CoreDNS pinned for the minor.
func checkCoreAddons(ctx context.Context, cfg aws.Config, in map[string]string, minor string, f *preflight) error {
	pinned, ok := upstream.EKSAddons(minor)
	if !ok {
		f.add("kubernetesVersion", "this plugin pins no vpc-cni, kube-proxy and CoreDNS add-on builds for Kubernetes %s (it pins %s)",
			minor, strings.Join(upstream.EKSAddonMinors(), ", "))
		return nil
	}
	for _, name := range upstream.EKSAddonNames {
		versions, err := awsapi.AddonVersions(ctx, cfg, name, minor)
		if err != nil {
			return err
		}
		if !slices.Contains(versions, pinned[name]) {
			f.add("kubernetesVersion", "EKS in %s offers no %s add-on %s for Kubernetes %s (it offers %s); this plugin installs that "+
				"build: pick a Kubernetes version it is offered for, or a KubeOpera release that pins another",
				in["region"], name, pinned[name], minor, orNone(versions))
		}
	}
	return nil
}

// checkEBSAddonValues validates the add-on's rendered configuration_values
// against the schema EKS holds for the pinned build
// (eks:DescribeAddonConfiguration): CreateAddon refuses keys it lacks, and
// would fail every apply and every retry after the cluster and its nodes
// were made.
func checkEBSAddonValues(ctx context.Context, cfg aws.Config, in map[string]string, minor string, f *preflight) error {
	schema, err := awsapi.AddonConfigurationSchema(ctx, cfg, "aws-ebs-csi-driver", upstream.EBSCSIAddon.Version)
	if err != nil {
		return err
	}
	// Every cluster's values have the same keys; only the name differs.
	values := tfmodules.EBSCSIConfigurationValues(tfmodules.Name("preflight"))
	if err := addonschema.Validate(schema, []byte(values)); err != nil {
		f.add("kubernetesVersion", "EKS in %s would refuse the configuration this plugin gives the aws-ebs-csi-driver add-on %s "+
			"for Kubernetes %s (%v): use a KubeOpera release whose add-on configuration fits that schema", in["region"],
			upstream.EBSCSIAddon.Version, minor, err)
	}
	return nil
}

// checkQuota compares the vCPUs the nodes need with the account's quota
// of on-demand standard instances (Service Quotas L-1216C47A). Other
// families have quotas of their own, which this does not read.
func checkQuota(ctx context.Context, cfg aws.Config, in map[string]string, it awsapi.InstanceType, o Options, f *preflight) error {
	if !standardFamily(it.Name) {
		return nil
	}
	nodes, _ := strconv.Atoi(in["nodeCount"])
	if o.ControlPlane {
		cp, _ := strconv.Atoi(in["controlPlaneCount"])
		nodes += cp
	}
	need := nodes * it.VCPUs
	quota, err := awsapi.VCPUQuota(ctx, cfg)
	if err != nil {
		return err
	}
	if float64(need) > quota {
		f.add("nodeCount", "the cluster needs %d vCPUs of on-demand standard instances (%d × %s, %d vCPUs each), above the account's "+
			"quota of %.0f in %s (Service Quotas, EC2 %s), which instances already running share: lower the count, pick a smaller "+
			"type, or request an increase in the Service Quotas console", need, nodes, it.Name, it.VCPUs, quota, in["region"],
			awsapi.OnDemandStandardVCPUQuota)
	}
	return nil
}

// standardFamily reports whether instances of type t count against the
// on-demand standard quota: families A, C, D, H, I, M, R, T and Z, but
// not the accelerated or special ones whose names start with the same
// letters (inf, dl, hpc, trn, mac).
func standardFamily(t string) bool {
	family, _, _ := strings.Cut(t, ".")
	for _, other := range []string{"inf", "dl", "hpc", "trn", "mac"} {
		if strings.HasPrefix(family, other) {
			return false
		}
	}
	return family != "" && strings.ContainsRune("acdhimrtz", rune(family[0]))
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

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

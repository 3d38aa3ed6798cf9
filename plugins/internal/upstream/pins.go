// Package upstream is the one table of the upstream parts the AWS plugins
// pin: container images, manifests, binaries, add-ons and the Terraform
// provider. The bootstrap scripts, the Terraform modules and the Go code
// take every version from here (the scripts get them rendered into their
// header), and the tests beside this table ask upstream's own code or data,
// fetched from the Go module proxy, whether each row holds.
package upstream

import (
	"fmt"
	"slices"
)

// Checked is the day the rows below were last checked against upstream.
const Checked = "2026-12-01"

// Pin is one upstream part at one version.
type Pin struct {
	// Part names the part, e.g. "containerd".
	Part string
	// Version is the pinned version as its source spells it.
	Version string
	// Source is where the nodes or Terraform get the part.
	Source string
	// Proof names the test that checks the row against upstream, or says
	// that only a real AWS run can.
	Proof string
	// Checked is the day the row was last checked against upstream.
	Checked string
}

// The binaries every node installs from their GitHub releases, each
// checked against the sha256 published with it.
var (
	// Containerd: containerd's own RELEASES.md at this version recommends
	// it for every Kubernetes minor the vanilla plugin offers (1.37 needs
	// 2.3 or later; 2.1 reached end of life on 2026-07-03).
	Containerd = Pin{Checked: Checked, Part: "containerd", Version: "2.4.2",
		Source: "https://github.com/containerd/containerd/releases",
		Proof:  "TestContainerdIsRecommendedForEveryOfferedKubernetes (RELEASES.md of github.com/containerd/containerd/v2@v2.4.2)"}
	// Runc: the release containerd tests this containerd with
	// (script/setup/runc-version); 1.3.0 had CVE-2025-31133, -52565 and
	// -52881, fixed from 1.3.3.
	Runc = Pin{Checked: Checked, Part: "runc", Version: "1.5.2",
		Source: "https://github.com/opencontainers/runc/releases",
		Proof:  "TestRuncIsTheOneContainerdTestsWith (script/setup/runc-version of containerd v2.4.2; github.com/opencontainers/runc@v1.5.2 served)"}
	// CNIPlugins are the reference plugins (bridge, portmap, loopback)
	// flannel's CNI configuration delegates to.
	CNIPlugins = Pin{Checked: Checked, Part: "CNI plugins", Version: "v1.10.0",
		Source: "https://github.com/containernetworking/plugins/releases",
		Proof:  "TestCNIPluginsAreServedAndNotOlderThanContainerdTests (github.com/containernetworking/plugins@v1.10.0; containerd v2.4.2 tests v1.9.1)"}
)

// The pod network: upstream's own manifest at Flannel's version, applied
// byte for byte (the node checks FlannelManifestSHA256). Its images are on
// ghcr.io, where flannel publishes from v0.26.4 on.
var (
	Flannel = Pin{Checked: Checked, Part: "flannel manifest", Version: "v0.28.11",
		Source: "https://raw.githubusercontent.com/flannel-io/flannel/v0.28.11/Documentation/kube-flannel.yml",
		Proof:  "TestFlannelManifestIsUpstreams (Documentation/kube-flannel.yml of github.com/flannel-io/flannel@v0.28.11)"}
	FlannelImage = Pin{Checked: Checked, Part: "flannel image", Version: "ghcr.io/flannel-io/flannel:v0.28.11",
		Source: "ghcr.io", Proof: Flannel.Proof}
	FlannelCNIPluginImage = Pin{Checked: Checked, Part: "flannel CNI plugin image", Version: "ghcr.io/flannel-io/flannel-cni-plugin:v1.10.0-flannel1",
		Source: "ghcr.io", Proof: Flannel.Proof}
)

// FlannelManifestSHA256 is the sha256 of Flannel.Source.
const FlannelManifestSHA256 = "ce933683a1bcb3c128f6530ab35a4938e997dbbedb79aca962add63189330fb3"

// FlannelPodCIDR is the pod network of the flannel manifest (net-conf.json);
// kubeadm init is given the same.
const FlannelPodCIDR = "10.244.0.0/16"

// CloudControllerImage is the repository of the AWS cloud controller
// manager's image; its tag is the module version.
const CloudControllerImage = "registry.k8s.io/provider-aws/cloud-controller-manager"

// cloudControllers are cloud-provider-aws releases by Kubernetes minor:
// the newest patch the Go module proxy serves of each minor's line.
var cloudControllers = map[string]string{
	"1.35": "v1.35.3",
	"1.36": "v1.36.2",
	"1.37": "v1.37.1",
}

// CloudController is the cloud-provider-aws release for a Kubernetes
// minor: the kustomize base the nodes apply (examples/existing-cluster/base
// at this tag) and the image tag.
func CloudController(minor string) (Pin, error) {
	v, ok := cloudControllers[minor]
	if !ok {
		return Pin{}, fmt.Errorf("no cloud-provider-aws release is pinned for Kubernetes %s", minor)
	}
	return Pin{Checked: Checked, Part: "cloud-provider-aws (Kubernetes " + minor + ")", Version: v,
		Source: "https://github.com/kubernetes/cloud-provider-aws//examples/existing-cluster/base?ref=" + v,
		Proof:  "TestCloudControllerIsUpstreamsBase (examples/existing-cluster/base of k8s.io/cloud-provider-aws@" + v + ")"}, nil
}

// CloudControllerMinors are the Kubernetes minors with a cloud controller pin.
func CloudControllerMinors() []string {
	out := make([]string, 0, len(cloudControllers))
	for m := range cloudControllers {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// EBSCSIDriver is the aws-ebs-csi-driver release both topologies run: a
// vanilla cluster's member 0 applies the stable kustomize overlay at this
// tag; EKS installs EBSCSIAddon, EKS's build of it. Upstream's newest
// release on the day checked (its CHANGELOG.md). The Go module proxy
// refuses the driver's module, so the tests carry the rules we rely on
// over from its source at this tag, each naming the file.
var EBSCSIDriver = Pin{Checked: Checked, Part: "aws-ebs-csi-driver", Version: "v1.64.0",
	Source: "https://github.com/kubernetes-sigs/aws-ebs-csi-driver//deploy/kubernetes/overlays/stable",
	Proof:  "TestEBSDriverOptionsPassTheDriversOwnValidation (rules read from pkg/driver at this tag; the proxy refuses the module); that the overlay applies only on a real AWS run"}

// EBSCSIAddon is the EKS add-on of EBSCSIDriver the eks module pins
// (addon_version). Only EKS knows which builds it offers: Validate asks it
// (DescribeAddonVersions) when credentials are present.
var EBSCSIAddon = Pin{Checked: Checked, Part: "aws-ebs-csi-driver EKS add-on", Version: "v1.64.0-eksbuild.1",
	Source: "EKS DescribeAddonVersions",
	Proof:  "TestEBSDriverOptionsPassTheDriversOwnValidation (an EKS build of EBSCSIDriver); existence only by Validate against AWS"}

// Kubernetes is kubeadm, kubelet and kubectl: the newest patch (or the
// requested one) of each minor awsprovider.VanillaVersions offers, from
// the pkgs.k8s.io repository of that minor.
var Kubernetes = Pin{Checked: Checked, Part: "kubeadm, kubelet, kubectl", Version: "minors of awsprovider.VanillaVersions",
	Source: "https://pkgs.k8s.io/core:/stable:/v<minor>/deb/",
	Proof:  "TestEveryOfferedMinorHasACloudController; the packages themselves only on a real AWS run"}

// TerraformAWSProvider is the hashicorp/aws constraint of every module: the
// provider's current major. Nothing the modules use was renamed or removed
// in 6.0 (its guide, website/docs/guides/version-6-upgrade.html.markdown:
// aws_eip vpc, aws_eks_addon resolve_conflicts, aws_instance
// cpu_core_count and data aws_region name are all unused here).
// Terraform takes no expression in required_providers, so the modules'
// versions.tf spell it; a test holds them to this row.
var TerraformAWSProvider = Pin{Checked: Checked, Part: "Terraform AWS provider", Version: "~> 6.0",
	Source: "registry.terraform.io/hashicorp/aws",
	Proof:  "TestModulesRequireThePinnedAWSProvider (the proxy refuses the provider's module; only terraform init on a real run resolves it)"}

// Table is every row, for the docs and the tests.
func Table() []Pin {
	rows := []Pin{Containerd, Runc, CNIPlugins, Flannel, FlannelImage, FlannelCNIPluginImage}
	for _, m := range CloudControllerMinors() {
		p, _ := CloudController(m)
		rows = append(rows, p)
	}
	rows = append(rows, EBSCSIDriver, EBSCSIAddon)
	rows = append(rows, eksAddonPins()...)
	return append(rows, Kubernetes, TerraformAWSProvider)
}

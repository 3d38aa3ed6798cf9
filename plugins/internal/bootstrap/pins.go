package bootstrap

import (
	"fmt"

	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
)

// Pins is the module's pins input for a cluster of Kubernetes minor: the
// upstream parts a node installs, taken from package upstream's table.
func Pins(minor string) (map[string]string, error) {
	ccm, err := upstream.CloudController(minor)
	if err != nil {
		return nil, fmt.Errorf("bootstrap pins: %w", err)
	}
	return map[string]string{
		"containerd_version":       upstream.Containerd.Version,
		"runc_version":             upstream.Runc.Version,
		"cni_plugins_version":      upstream.CNIPlugins.Version,
		"pod_cidr":                 upstream.FlannelPodCIDR,
		"flannel_manifest_url":     upstream.Flannel.Source,
		"flannel_manifest_sha256":  upstream.FlannelManifestSHA256,
		"cloud_controller_version": ccm.Version,
		"cloud_controller_image":   upstream.CloudControllerImage + ":" + ccm.Version,
		"ebs_csi_driver_ref":       upstream.EBSCSIDriver.Version,
	}, nil
}

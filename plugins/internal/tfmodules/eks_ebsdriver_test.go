package tfmodules

import (
	"encoding/json"
	"fmt"
	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/plugins/internal/addonschema"
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
)

// The rules below are kubernetes-sigs/aws-ebs-csi-driver's own, read at
// upstream.EBSCSIDriver.Version (the Go module proxy refuses the driver's module, so
// they are carried over as facts, each naming its file). Bump them with
// the pin.
const ebsDriverTag = "v1.64.0"

// pkg/driver/validation.go validateExtraTags: reserved keys and prefixes.
// pkg/driver/driver.go NewDriver returns ValidateDriverOptions' error, so
// a bad extra tag stops the controller at start-up.
var (
	// pkg/cloud/cloud.go VolumeNameTagKey, SnapshotNameTagKey;
	// pkg/driver/constants.go ClusterNameTagKey.
	ebsReservedTagKeys = []string{"CSIVolumeName", "CSIVolumeSnapshotName", "ebs.csi.aws.com/cluster-name"}
	// pkg/cloud/cloud.go KubernetesTagKeyPrefix; util.GetDriverName()+"/"
	// (the driver's name, ebs.csi.aws.com, in a real run).
	ebsReservedTagPrefixes = []string{"kubernetes.io", "ebs.csi.aws.com/"}
	// charts/aws-ebs-csi-driver/values.schema.json: the controller values
	// the module may set, with their JSON types. templates/controller.yaml
	// turns k8sTagClusterId into --k8s-tag-cluster-id.
	ebsControllerValues = map[string]string{"k8sTagClusterId": "string", "extraVolumeTags": "object"}
)

// ebsAddonValues decodes the add-on's configuration_values for a cluster
// named name, after checking that the module passes the plugin's rendering
// through untouched (the preflight validates that same text).
func ebsAddonValues(t *testing.T, files []computeFile, name string) map[string]map[string]any {
	t.Helper()
	if got := expr(t, files, "configuration_values", "resource", "aws_eks_addon", "ebs_csi"); got != "var.ebs_csi_configuration_values" {
		t.Fatalf("aws_eks_addon.ebs_csi configuration_values = %s, want var.ebs_csi_configuration_values, the text the preflight validates", got)
	}
	var out map[string]map[string]any
	if err := json.Unmarshal([]byte(EBSCSIConfigurationValues(name)), &out); err != nil {
		t.Fatalf("configuration_values %s: %v", EBSCSIConfigurationValues(name), err)
	}
	return out
}

// extraTagProblem is validateExtraTags' verdict on one key, or "".
func extraTagProblem(key string) string {
	if slices.Contains(ebsReservedTagKeys, key) {
		return fmt.Sprintf("tag key '%s' is reserved", key)
	}
	for _, p := range ebsReservedTagPrefixes {
		if strings.HasPrefix(key, p) {
			return fmt.Sprintf("tag key prefix '%s' is reserved", p)
		}
	}
	return ""
}

func TestEBSDriverOptionsPassTheDriversOwnValidation(t *testing.T) {
	if ebsDriverTag != upstream.EBSCSIDriver.Version {
		t.Fatalf("the rules here were read at %s, the pin is %s: read them again at the new tag", ebsDriverTag, upstream.EBSCSIDriver.Version)
	}
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(upstream.EBSCSIDriver.Version) + `-eksbuild\.[0-9]+$`).MatchString(upstream.EBSCSIAddon.Version) {
		t.Errorf("add-on version %s is not an EKS build of driver %s", upstream.EBSCSIAddon.Version, upstream.EBSCSIDriver.Version)
	}
	name := Name(testClusterID)
	values := ebsAddonValues(t, moduleFiles(t, "eks"), name)
	for section := range values {
		if section != "controller" {
			t.Errorf("configuration_values sets %q; only controller values are checked against the chart", section)
		}
	}
	controller := values["controller"]
	for key, v := range controller {
		want, ok := ebsControllerValues[key]
		if !ok {
			t.Errorf("controller.%s is not among the chart values read at %s", key, ebsDriverTag)
			continue
		}
		if got := jsonType(v); got != want {
			t.Errorf("controller.%s is a JSON %s; the chart's schema wants %s", key, got, want)
		}
	}
	t.Run("the values pass the EKS add-on's own schema (stored copy of a published one), which refuses unknown keys", func(t *testing.T) {
		if err := addonschema.Validate(fakeaws.AddonSchema("aws-ebs-csi-driver"), []byte(EBSCSIConfigurationValues(name))); err != nil {
			t.Errorf("CreateAddon would refuse the configuration: %v", err)
		}
	})
	t.Run("no extraVolumeTags key starts with kubernetes.io or is otherwise reserved (pkg/driver/validation.go)", func(t *testing.T) {
		tags, _ := controller["extraVolumeTags"].(map[string]any)
		for k := range tags {
			if p := extraTagProblem(k); p != "" {
				t.Errorf("extraVolumeTags[%q]: the driver %s refuses it (%s) and its controller exits", k, ebsDriverTag, p)
			}
		}
	})
	t.Run("volumes tagged kubeopera.io/cluster = the cluster name, the tag the sweep looks for", func(t *testing.T) {
		tags, _ := controller["extraVolumeTags"].(map[string]any)
		if got, _ := tags[awsapi.VolumeTag].(string); got != name {
			t.Fatalf("controller.extraVolumeTags[%q] = %q, want the cluster name %q", awsapi.VolumeTag, got, name)
		}
	})
}

// The check itself must refuse what upstream refuses: the value the eks
// module once set, which stopped the controller.
func TestExtraTagRuleRefusesTheClusterOwnershipTag(t *testing.T) {
	for key, want := range map[string]bool{
		"kubernetes.io/cluster/kubeopera-x": true, "kubernetes.io": true, "CSIVolumeName": true,
		"ebs.csi.aws.com/cluster-name": true, "ebs.csi.aws.com/any": true,
		"kubeopera.io/cluster-id": false, "team": false, "k8s.io/x": false,
	} {
		if got := extraTagProblem(key) != ""; got != want {
			t.Errorf("extra tag key %q refused = %v, want %v (validateExtraTags at %s)", key, got, want, ebsDriverTag)
		}
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case map[string]any:
		return "object"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case []any:
		return "array"
	}
	return "null"
}

package gitops

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// checkAWSStorageClass checks the tree's StorageClass on AWS against what
// the provider plugins install: the EBS CSI driver (EKS add-on, or the
// aws-vanilla bootstrap), gp3 volumes, created only once a pod is
// scheduled so the volume lands in that pod's zone (EBS volumes are zonal).
func checkAWSStorageClass(t *testing.T, sc *unstructured.Unstructured) {
	t.Helper()
	for _, f := range []struct {
		path []string
		want string
	}{
		{[]string{"provisioner"}, "ebs.csi.aws.com"},
		{[]string{"parameters", "type"}, "gp3"},
		{[]string{"parameters", "encrypted"}, "true"},
		{[]string{"volumeBindingMode"}, "WaitForFirstConsumer"},
		{[]string{"reclaimPolicy"}, "Retain"},
	} {
		if got := str(t, sc, f.path...); got != f.want {
			t.Errorf("storage class %v = %q, want %q", f.path, got, f.want)
		}
	}
}

// The tree installs no CSI driver for any provider: the provider plugins
// do, and a second install would fight the first over the CSIDriver object.
func TestTreeInstallsNoCSIDriver(t *testing.T) {
	for name, p := range variants() {
		for _, o := range buildAll(t, p) {
			if o.GetKind() == "HelmRelease" {
				if chart := str(t, o, "spec", "chart", "spec", "chart"); chart == "aws-ebs-csi-driver" {
					t.Errorf("%s: the tree installs %s", name, chart)
				}
			}
			if o.GetKind() == "CSIDriver" || o.GetKind() == "DaemonSet" {
				t.Errorf("%s: the tree carries a %s %s", name, o.GetKind(), o.GetName())
			}
		}
	}
}

// On a cluster KubeOpera provisioned on AWS the tree's gp3 class is the
// one default StorageClass (the plugins make none); elsewhere it is not,
// so a connected cluster's own default stays the only one.
func TestTreeStorageClassIsTheOneDefaultOnlyWhenAsked(t *testing.T) {
	for _, asked := range []bool{true, false} {
		p := prodParams()
		p.DefaultStorageClass = asked
		defaults := 0
		for _, o := range buildAll(t, p) {
			if o.GetKind() == "StorageClass" && o.GetAnnotations()[defaultClassAnnotation] == "true" {
				defaults++
				if o.GetName() != StorageClassName {
					t.Errorf("default StorageClass %s, want %s", o.GetName(), StorageClassName)
				}
			}
		}
		if want := map[bool]int{true: 1, false: 0}[asked]; defaults != want {
			t.Errorf("DefaultStorageClass=%v: %d default StorageClasses in the tree, want %d", asked, defaults, want)
		}
	}
}

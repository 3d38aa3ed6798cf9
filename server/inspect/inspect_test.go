package inspect

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPlacement(t *testing.T) {
	node := func(providerID string, labels map[string]string) corev1.Node {
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	}
	cases := []struct {
		name             string
		nodes            []corev1.Node
		provider, region string
	}{
		{"no nodes", nil, "unknown", ""},
		{"no cloud controller manager", []corev1.Node{node("", nil)}, "unknown", ""},
		{"aws providerID gives region from the zone", []corev1.Node{node("aws:///eu-north-1a/i-0abc", nil)}, "aws", "eu-north-1"},
		{"region label wins", []corev1.Node{node("aws:///eu-north-1a/i-0abc", map[string]string{corev1.LabelTopologyRegion: "us-east-2"})}, "aws", "us-east-2"},
		{"label without providerID", []corev1.Node{node("", map[string]string{corev1.LabelTopologyRegion: "westeurope"})}, "unknown", "westeurope"},
		{"gce providerID has no aws region", []corev1.Node{node("gce://proj/europe-west1-b/vm", nil)}, "gce", ""},
		{"malformed aws providerID", []corev1.Node{node("aws:///i-0abc", nil)}, "aws", ""},
		{"first informative node", []corev1.Node{node("", nil), node("aws:///us-west-2c/i-1", nil)}, "aws", "us-west-2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, r := Placement(tc.nodes)
			if p != tc.provider || r != tc.region {
				t.Errorf("Placement = %q, %q; want %q, %q", p, r, tc.provider, tc.region)
			}
		})
	}
}

// A node's row carries the instance type the cloud controller labelled it
// with, so the cluster page can price what runs; none without the label.
func TestDescribeGivesTheInstanceType(t *testing.T) {
	labelled := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{corev1.LabelInstanceTypeStable: "t3.large"}}}
	if got := Describe(labelled).InstanceType; got != "t3.large" {
		t.Errorf("instance type = %q, want t3.large from %s", got, corev1.LabelInstanceTypeStable)
	}
	if got := Describe(corev1.Node{}).InstanceType; got != "" {
		t.Errorf("instance type of an unlabelled node = %q, want none", got)
	}
}

package v1alpha1_test

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

func ptr[T any](v T) *T { return &v }

// The generated CRD, installed on a real API server, accepts what the
// server creates and refuses what no mode can mean, with its own message.
func TestCRDValidation(t *testing.T) {
	ctx := context.Background()
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"../../../config/crd/bases"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1.AddToScheme(scheme)
	c, err := client.New(sb.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: v1.Namespace}}); err != nil {
		t.Fatal(err)
	}
	connect := v1.HostClusterSpec{Mode: v1.ModeConnectExisting, Provider: "aws",
		ConnectKubeconfigSecretRef: &v1.SecretKeyRef{Name: "hostcluster-a-kubeconfig", Key: "kubeconfig"}}
	vanilla := v1.HostClusterSpec{Mode: v1.ModeProvisionVanilla, Provider: "aws", Region: "eu-north-1",
		Provisioning: &v1.Provisioning{Plugin: "aws-vanilla", CredentialRef: "cred", ControlPlaneCount: ptr[int32](3), NodeCount: ptr[int32](2)}}
	cases := []struct {
		name   string
		mutate func(*v1.HostClusterSpec)
		base   v1.HostClusterSpec
		refuse string // part of the API server's message; "" = accepted
	}{
		{"connect", nil, connect, ""},
		{"vanilla with 3 control planes", nil, vanilla, ""},
		{"unknown mode", func(s *v1.HostClusterSpec) { s.Mode = "import" }, connect, "supported values"},
		{"connect without kubeconfig", func(s *v1.HostClusterSpec) { s.ConnectKubeconfigSecretRef = nil }, connect, "needs connectKubeconfigSecretRef"},
		{"provision without provisioning", func(s *v1.HostClusterSpec) { s.Provisioning = nil }, vanilla, "need spec.provisioning"},
		{"even control planes", func(s *v1.HostClusterSpec) { s.Provisioning.ControlPlaneCount = ptr[int32](2) }, vanilla, "etcd keeps quorum"},
		{"too many nodes", func(s *v1.HostClusterSpec) { s.Provisioning.NodeCount = ptr[int32](101) }, vanilla, "less than or equal to 100"},
		{"eks with control planes", func(s *v1.HostClusterSpec) { s.Mode = v1.ModeProvisionEKS }, vanilla, "EKS runs the control plane"},
		{"no provider", func(s *v1.HostClusterSpec) { s.Provider = "" }, connect, "provider"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := *tc.base.DeepCopy()
			if tc.mutate != nil {
				tc.mutate(&spec)
			}
			hc := &v1.HostCluster{ObjectMeta: metav1.ObjectMeta{Name: "hc-" + string(rune('a'+i)), Namespace: v1.Namespace}, Spec: spec}
			err := c.Create(ctx, hc)
			switch {
			case tc.refuse == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refuse != "" && (err == nil || !strings.Contains(err.Error(), tc.refuse)):
				t.Fatalf("err = %v, want a refusal mentioning %q", err, tc.refuse)
			}
		})
	}
	// Status is a subresource with the phase enum.
	var hc v1.HostCluster
	if err := c.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: "hc-a"}, &hc); err != nil {
		t.Fatal(err)
	}
	hc.Status.Phase = "Dancing"
	if err := c.Status().Update(ctx, &hc); err == nil {
		t.Errorf("status phase outside the enum was accepted")
	}
	hc.Status.Phase = v1.PhaseValidatingAccess
	if err := c.Status().Update(ctx, &hc); err != nil {
		t.Errorf("status update: %v", err)
	}
}

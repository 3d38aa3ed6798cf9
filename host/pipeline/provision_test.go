package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/controller"
	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/server/credresolve"
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// A provisioned cluster goes the whole way through the real parts: the
// HostCluster names the aws-vanilla plugin and a stored, sealed credential;
// the controller provisions through the real plugin binary (terraform on
// an offline module with the plugin's inputs and outputs, its state on the
// management cluster, AWS calls to local SSM/STS endpoints); the machines'
// bootstrap is played by publishing its markers and the admin kubeconfig
// (the target sandbox's) to SSM; the pipeline then takes it to Ready.
func TestProvisionedClusterConvergesToReady(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	plugins := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(plugins, plugin.BinaryPrefix+"aws-vanilla"),
		"../../plugins/aws-vanilla").CombinedOutput(); err != nil {
		t.Fatalf("build aws-vanilla: %v\n%s", err, out)
	}
	aws := fakeaws.Start(t)
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	for k, v := range aws.Env() {
		t.Setenv(k, v)
	}
	t.Setenv("KUBEOPERA_STATE_KUBECONFIG", f.mgmt.KubeconfigPath)
	t.Setenv("KUBEOPERA_TERRAFORM_DIR", t.TempDir())
	t.Setenv("KUBEOPERA_TERRAFORM_MODULE_DIR", filepath.Join("..", "..", "plugin_test", "testdata", "tfmodules", "vanilla"))
	t.Setenv("TF_CLI_CONFIG_FILE", "/dev/null")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kubeopera-provisioning"}}
	if err := f.c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	host, err := plugin.Open(ctx, plugin.Options{Dir: plugins, Logger: hclog.NewNullLogger(),
		PassEnv: []string{"AWS_*", "KUBEOPERA_*", "TF_CLI_CONFIG_FILE"}})
	if err != nil || len(host.Plugins()) != 1 {
		t.Fatalf("plugin host: %v %v", err, host.Skipped())
	}
	t.Cleanup(host.Close)
	creds := sealedCredential(t, "cred-aws", user)

	// What the first control plane publishes when kubeadm init is done,
	// and the two workers once they joined.
	aws.SSM.Put("/kubeopera/c2/members/0", "String", "ready")
	aws.SSM.Put("/kubeopera/c2/workers/i-0w1", "String", "joined")
	aws.SSM.Put("/kubeopera/c2/workers/i-0w2", "String", "joined")
	aws.SSM.Put("/kubeopera/c2/admin-kubeconfig", "SecureString", string(f.target.Kubeconfig))

	stop := f.managerWith(t, &controller.Reconciler{Pipeline: f.pipeline(f.chart.URL), PollInterval: 250 * time.Millisecond,
		Providers: controller.HostProviders(host), Credentials: creds}, 2)
	defer stop()
	hc := f.hostCluster("c2", "clusters/c2", "git-creds")
	hc.Generation, hc.Spec.ConnectKubeconfigSecretRef, hc.Spec.Mode = 0, nil, v1.ModeProvisionVanilla
	hc.Spec.Provisioning = &v1.Provisioning{Plugin: "aws-vanilla", CredentialRef: "cred-aws", Inputs: map[string]string{
		"region": "eu-north-1", "credentialRef": "cred-aws", "controlPlaneCount": "1", "nodeCount": "2",
		"apiAllowedCIDRs": "203.0.113.0/24"}}
	if err := f.c.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	hc, _ = f.watch(t, "c2", 5*time.Minute, func() { f.startFlux(t) })

	if !meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionProvisioned) ||
		!strings.HasPrefix(hc.Annotations[controller.OperationAnnotation], "apply:c2?") {
		t.Errorf("provisioning: conditions %v, operation %q", hc.Status.Conditions, hc.Annotations[controller.OperationAnnotation])
	}
	var kc, state corev1.Secret
	if err := f.c.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: v1.KubeconfigSecretName("c2")}, &kc); err != nil ||
		!bytes.Equal(kc.Data[v1.KubeconfigSecretKey], f.target.Kubeconfig) {
		t.Errorf("stored kubeconfig is not the one the control plane published (err %v)", err)
	}
	if err := f.c.Get(ctx, client.ObjectKey{Namespace: "kubeopera-provisioning", Name: "tfstate-default-c2"}, &state); err != nil {
		t.Errorf("terraform state on the management cluster: %v", err)
	}
	if aws.SSM.Calls("/kubeopera/c2/admin-kubeconfig") == 0 {
		t.Error("the plugin never read the published kubeconfig from SSM")
	}
}

// sealedCredential stores an AWS key the way the server does and returns
// the resolver the controller opens it with.
func sealedCredential(t *testing.T, id string, user fakeaws.Principal) credresolve.Resolver {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	keys, err := sealing.NewKeyring(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := json.Marshal(credresolve.Payload{"accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey})
	sealed, keyID, err := keys.Seal(plain, []byte(id))
	if err != nil {
		t.Fatal(err)
	}
	err = st.CreateCredential(ctx, &store.Credential{ID: id, Label: id, Kind: "access_key",
		Ciphertext: sealed, KeyID: keyID, Last4: user.AccessKeyID[16:], CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return credresolve.Resolver{Store: st, Keyring: keys}
}

package plugin_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/sdktest"
)

// awsWorld is what an AWS plugin reaches in these tests: a management
// sandbox for the terraform state, local SSM and STS endpoints speaking
// AWS's wire protocols (checking SigV4), and an offline module tree with
// the same inputs and outputs as the plugin's own.
type awsWorld struct {
	env   []string
	creds sdk.Credentials
	aws   *fakeaws.Server
	mgmt  *sandbox.Sandbox
}

func newAWSWorld(t *testing.T, flavour string, extra map[string]string) *awsWorld {
	t.Helper()
	mgmt, err := sandbox.Start(context.Background(), sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mgmt.Stop() })
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kubeopera-provisioning"}}
	if _, err := mgmt.Client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	modules := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "tfmodules", flavour, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"main.tf": string(src)}
	for k, v := range extra {
		files[k] = v
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(modules, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fake := fakeaws.Start(t)
	user := fake.IAM.AddUser("123456789012", "kubeopera")
	w := &awsWorld{aws: fake, mgmt: mgmt,
		creds: sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey},
		env: []string{"KUBEOPERA_STATE_KUBECONFIG=" + mgmt.KubeconfigPath, "KUBEOPERA_TERRAFORM_DIR=" + t.TempDir(),
			"KUBEOPERA_TERRAFORM_MODULE_DIR=" + modules, "TF_CLI_CONFIG_FILE=/dev/null", "CHECKPOINT_DISABLE=1"}}
	for k, v := range fake.Env() {
		w.env = append(w.env, k+"="+v)
	}
	return w
}

// connect starts the plugin binary as the host does, with w's environment.
func (w *awsWorld) connect(t *testing.T, name string) sdk.Provider {
	t.Helper()
	cmd := exec.Command(built.plugins[name])
	cmd.Env = append(cmd.Environ(), w.env...)
	cc := sdk.ClientConfig(cmd)
	cc.Logger = hclog.NewNullLogger()
	client := goplugin.NewClient(cc)
	t.Cleanup(client.Kill)
	p, err := sdk.Connect(client)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitState polls Status until want (or a final state), returning the last.
func waitState(t *testing.T, p sdk.Provider, op string, creds sdk.Credentials, want sdk.State, within time.Duration) sdk.OperationStatus {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st, err := p.Status(context.Background(), sdk.StatusRequest{OperationID: op, Credentials: creds})
		if err != nil {
			t.Fatalf("Status(%s): %v", op, err)
		}
		if st.State == want || st.State == sdk.Failed || time.Now().After(deadline) {
			if st.State != want {
				t.Fatalf("Status(%s) = %s %q, want %s\n%s", op, st.State, st.Message, want, strings.Join(st.LogTail, "\n"))
			}
			return st
		}
		time.Sleep(200 * time.Millisecond)
	}
}

var awsInputs = map[string]string{"region": "eu-north-1", "credentialRef": "cred-0001", "apiAllowedCIDRs": "203.0.113.0/24"}

// aws-vanilla end to end over gRPC: Provision runs the real terraform
// (state in the kubernetes backend on a sandbox), Status then follows the
// control planes' bootstrap markers in SSM, Kubeconfig reads the published
// manager kubeconfig from SSM with its token's expiry, Destroy runs
// terraform destroy and sweeps what Kubernetes left.
func TestVanillaProvisionsThroughTerraformAndTheSSMRelay(t *testing.T) {
	w := newAWSWorld(t, "vanilla", map[string]string{"relay.auto.tfvars": "relay_nonce = \"n0nce\"\n"})
	p := w.connect(t, "aws-vanilla")
	// A cluster of the same ID, destroyed before, left its markers behind;
	// this provision's relay path has its own nonce.
	w.aws.SSM.Put("/kubeopera/prod-eu/members/0", "String", "ready")
	ctx := context.Background()
	inputs := map[string]string{"region": "eu-north-1", "credentialRef": "cred-1", "controlPlaneCount": "3", "apiAllowedCIDRs": "203.0.113.0/24"}
	op, err := p.Provision(ctx, sdk.ProvisionRequest{ClusterID: "prod-eu", Inputs: inputs, Credentials: w.creds})
	if err != nil {
		t.Fatal(err)
	}
	st := waitState(t, p, op.ID, w.creds, sdk.Running, time.Minute)
	for !strings.Contains(st.Message, "bootstrapping") {
		st = waitState(t, p, op.ID, w.creds, sdk.Running, time.Minute)
	}
	if !strings.Contains(st.Message, "control plane 1 of 3") || st.Progress < 80 {
		t.Errorf("after terraform: %d%% %q", st.Progress, st.Message)
	}
	if _, err := w.mgmt.Client.CoreV1().Secrets("kubeopera-provisioning").Get(ctx, "tfstate-default-prod-eu", metav1.GetOptions{}); err != nil {
		t.Errorf("terraform state is not in the kubernetes backend: %v", err)
	}
	w.aws.SSM.Put("/kubeopera/prod-eu/n0nce/members/0", "String", "ready")
	w.aws.SSM.Put("/kubeopera/prod-eu/n0nce/members/1", "String", "failed: kubeadm-join: etcd member add timed out")
	st = waitState(t, p, op.ID, w.creds, sdk.Failed, 10*time.Second)
	_ = st
	failed, _ := p.Status(ctx, sdk.StatusRequest{OperationID: op.ID, Credentials: w.creds})
	if !strings.Contains(failed.Message, "control plane 2 of 3") || !strings.Contains(failed.Message, "kubeadm-join") {
		t.Errorf("failed member: %q", failed.Message)
	}
	w.aws.SSM.Put("/kubeopera/prod-eu/n0nce/members/1", "String", "joined")
	w.aws.SSM.Put("/kubeopera/prod-eu/n0nce/members/2", "String", "joined")
	// Done only once the two workers (nodeCount's default) joined.
	if st = waitState(t, p, op.ID, w.creds, sdk.Running, 10*time.Second); !strings.Contains(st.Message, "0 of 2 workers joined") {
		t.Errorf("control planes up, no worker yet: %q, want 0 of 2 workers joined", st.Message)
	}
	w.aws.SSM.Put("/kubeopera/prod-eu/n0nce/workers/i-0w1", "String", "joined")
	w.aws.SSM.Put("/kubeopera/prod-eu/n0nce/workers/i-0w2", "String", "joined")
	waitState(t, p, op.ID, w.creds, sdk.Succeeded, 10*time.Second)

	// What the control planes publish: a 2-hour token of the
	// kubeopera-manager ServiceAccount, whose expiry the host refreshes by.
	exp := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	claims := base64.RawURLEncoding.EncodeToString([]byte(`{"exp":` + strconv.FormatInt(exp.Unix(), 10) + `}`))
	kubeconfig := "apiVersion: v1\nkind: Config\nusers:\n- name: m\n  user:\n    token: e30." + claims + ".c2ln\n" +
		"contexts:\n- name: m\n  context:\n    user: m\n    cluster: c\ncurrent-context: m\n"
	w.aws.SSM.Put("/kubeopera/prod-eu/admin-kubeconfig", "SecureString", kubeconfig)
	kc, err := p.Kubeconfig(ctx, sdk.KubeconfigRequest{OperationID: op.ID, Credentials: w.creds})
	if err != nil || string(kc.Data) != kubeconfig || !kc.ExpiresAt.Equal(exp) {
		t.Fatalf("Kubeconfig: %v, %q, expires %v, want %v", err, kc.Data, kc.ExpiresAt, exp)
	}
	again, err := p.Provision(ctx, sdk.ProvisionRequest{ClusterID: "prod-eu", Inputs: inputs, Credentials: w.creds})
	if err != nil || again.ID != op.ID {
		t.Errorf("second Provision: %v, %q vs %q", err, again.ID, op.ID)
	}
	// A volume of a PVC still attached when the machines went: the sweep
	// after terraform destroy names it; a free one of the cluster goes.
	owned := map[string]string{"kubernetes.io/cluster/kubeopera-prod-eu": "owned"}
	w.aws.EC2.AddVolume(fakeaws.Volume{ID: "vol-free", State: "available", Tags: owned})
	w.aws.EC2.AddVolume(fakeaws.Volume{ID: "vol-stuck", State: "in-use", Instance: "i-0gone", Tags: owned})
	// An ingress NLB in the public subnets would keep terraform from
	// deleting them: it is gone before Destroy has started terraform.
	w.aws.ELB.AddLoadBalancer(fakeaws.LoadBalancer{ARN: "arn:lb/ingress", Name: "ingress", Tags: owned})
	del, err := p.Destroy(ctx, sdk.DestroyRequest{ClusterID: "prod-eu", Inputs: inputs, Credentials: w.creds})
	if err != nil {
		t.Fatal(err)
	}
	if w.aws.ELB.Exists("arn:lb/ingress") {
		t.Error("Destroy started terraform with the cluster's load balancer still there")
	}
	done := waitState(t, p, del.ID, w.creds, sdk.Succeeded, time.Minute)
	if left := w.aws.SSM.Names("/kubeopera/prod-eu/n0nce"); len(left) != 0 || !strings.Contains(done.Message, "deleted 5 bootstrap parameters") {
		t.Errorf("after Destroy (%q) the relay still holds %v", done.Message, left)
	}
	if _, ok := w.aws.EC2.Volume("vol-free"); ok || !strings.Contains(done.Message, "volume vol-stuck (in-use, attached to i-0gone)") ||
		!strings.Contains(done.Message, "load balancer ingress") {
		t.Errorf("after Destroy (%q): want vol-free deleted, vol-stuck named and the load balancer reported", done.Message)
	}
	if _, ok := w.aws.SSM.Get("/kubeopera/prod-eu/members/0"); !ok {
		t.Error("Destroy deleted a parameter outside its own provision's relay path")
	}
}

// aws-eks: Kubeconfig is built from terraform's outputs with a short-lived
// presigned STS token, which the host refreshes before ExpiresAt.
func TestEKSKubeconfigCarriesAShortLivedToken(t *testing.T) {
	caPEM := testCA(t)
	w := newAWSWorld(t, "eks", map[string]string{"ca.auto.tfvars": `ca = "` + base64.StdEncoding.EncodeToString(caPEM) + `"` + "\n"})
	p := w.connect(t, "aws-eks")
	ctx := context.Background()
	op, err := p.Provision(ctx, sdk.ProvisionRequest{ClusterID: "eks-1", Inputs: awsInputs, Credentials: w.creds})
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, p, op.ID, w.creds, sdk.Succeeded, time.Minute)
	before := time.Now()
	kc, err := p.Kubeconfig(ctx, sdk.KubeconfigRequest{OperationID: op.ID, Credentials: w.creds})
	if err != nil {
		t.Fatal(err)
	}
	if d := kc.ExpiresAt.Sub(before); d < 13*time.Minute || d > 14*time.Minute+time.Second {
		t.Errorf("token expires in %s, want about 14m", d)
	}
	cfg, err := clientcmd.Load(kc.Data)
	if err != nil {
		t.Fatal(err)
	}
	user := cfg.AuthInfos["kubeopera-eks-1"]
	cluster := cfg.Clusters["kubeopera-eks-1"]
	if user == nil || cluster == nil || !strings.HasPrefix(user.Token, "k8s-aws-v1.") || user.Exec != nil ||
		string(cluster.CertificateAuthorityData) != string(caPEM) || !strings.HasPrefix(cluster.Server, "https://") {
		t.Fatalf("kubeconfig: clusters %v users %v", cfg.Clusters, cfg.AuthInfos)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(user.Token, "k8s-aws-v1."))
	if err != nil || !strings.Contains(string(raw), "Action=GetCallerIdentity") || !strings.Contains(string(raw), "x-k8s-aws-id") {
		t.Errorf("token is not a presigned GetCallerIdentity URL: %q", raw)
	}
}

// Validate proves the credential with sts:GetCallerIdentity: a key AWS
// does not know is refused by field.
func TestValidateProvesTheCredentialWithSTS(t *testing.T) {
	w := newAWSWorld(t, "eks", nil)
	p := w.connect(t, "aws-eks")
	if err := p.Validate(context.Background(), sdk.ValidateRequest{Inputs: awsInputs, Credentials: w.creds}); err != nil {
		t.Fatalf("known credential: %v", err)
	}
	unknown := sdk.Credentials{"kind": "access_key", "accessKeyId": "AKIAABCDEFGHIJKLMNOP", "secretAccessKey": strings.Repeat("x", 40)}
	err := p.Validate(context.Background(), sdk.ValidateRequest{Inputs: awsInputs, Credentials: unknown})
	fields := sdk.FieldErrors(err)
	if len(fields) != 1 || fields[0].Field != "credentials" || strings.Contains(err.Error(), strings.Repeat("x", 40)) {
		t.Errorf("unknown credential: %v", err)
	}
}

// Validate asks AWS what only AWS knows, through the local EC2 and EKS
// endpoints: the instance type's size and architecture, and whether EKS has
// the version in standard support.
func TestValidateChecksInstanceTypeAndEKSVersionWithAWS(t *testing.T) {
	w := newAWSWorld(t, "eks", nil)
	eks := w.connect(t, "aws-eks")
	vanilla := w.connect(t, "aws-vanilla")
	with := func(kv ...string) map[string]string {
		in := map[string]string{}
		for k, v := range awsInputs {
			in[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			in[kv[i]] = kv[i+1]
		}
		return in
	}
	for _, tc := range []struct {
		name   string
		p      sdk.Provider
		inputs map[string]string
		field  string
		want   string
	}{
		{"eks default", eks, with(), "", ""},
		{"eks patch release", eks, with("kubernetesVersion", "1.36.3"), "", ""},
		{"vanilla default", vanilla, with(), "", ""},
		{"vanilla arm64", vanilla, with("instanceType", "m7g.large"), "", ""},
		{"too small for a kubeadm control plane", vanilla, with("instanceType", "t2.micro"), "inputs.instanceType", "at least 2 vCPUs and 1.7 GiB"},
		{"unknown instance type", eks, with("instanceType", "t9.huge"), "inputs.instanceType", "EC2 does not offer t9.huge in eu-north-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate(context.Background(), sdk.ValidateRequest{Inputs: tc.inputs, Credentials: w.creds})
			fields := sdk.FieldErrors(err)
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.field != "" && (len(fields) != 1 || fields[0].Field != tc.field || !strings.Contains(fields[0].Message, tc.want)):
				t.Fatalf("Validate = %v, want %s: ...%s...", err, tc.field, tc.want)
			}
		})
	}
	// EKS's own list decides: a version it moved to extended support is
	// refused even though the plugin's table offers it.
	w.aws.EKS.SetVersions(fakeaws.ClusterVersion{Version: "1.36", Status: fakeaws.ExtendedSupport},
		fakeaws.ClusterVersion{Version: "1.35", Status: fakeaws.StandardSupport})
	err := eks.Validate(context.Background(), sdk.ValidateRequest{Inputs: with("kubernetesVersion", "1.36"), Credentials: w.creds})
	if f := sdk.FieldErrors(err); len(f) != 1 || f[0].Field != "inputs.kubernetesVersion" || !strings.Contains(f[0].Message, "extended support") {
		t.Errorf("EKS 1.36 in extended support: %v", err)
	}
	if w.aws.EC2.Calls() == 0 || w.aws.EKS.Calls() == 0 {
		t.Errorf("EC2 answered %d calls, EKS %d: Validate did not ask AWS", w.aws.EC2.Calls(), w.aws.EKS.Calls())
	}
}

// The AWS plugins pass the conformance kit with their lifecycle really
// running (terraform, state, SSM). aws-eks runs the kit's own lifecycle
// too, day 2 included: scale up and back, the upgrade its version table
// offers (two applies), a skipped minor, a downgrade and 101 nodes refused.
// aws-vanilla's is skipped: a vanilla cluster is Ready only when its
// machines publish to SSM, which the tests above play.
func TestAWSPluginsPassConformanceWithTheirLifecycle(t *testing.T) {
	for _, name := range []string{"aws-vanilla", "aws-eks"} {
		t.Run(name, func(t *testing.T) {
			var extra map[string]string
			if name == "aws-eks" {
				extra = map[string]string{"ca.auto.tfvars": `ca = "` + base64.StdEncoding.EncodeToString(testCA(t)) + `"` + "\n"}
			}
			w := newAWSWorld(t, strings.TrimPrefix(name, "aws-"), extra)
			sdktest.Run(t, sdktest.Config{Binary: built.plugins[name], ValidInputs: awsInputs, Credentials: w.creds,
				EstimateInputs: map[string]string{"region": "us-east-1"}, // the price table's region
				Env:            w.env, Timeout: 30 * time.Second, SkipLifecycle: name == "aws-vanilla",
				SkipDial:         "the offline EKS module names an endpoint in AWS, and these tests dial only loopback",
				LifecycleTimeout: 2 * time.Minute, PollInterval: 200 * time.Millisecond})
		})
	}
}

func testCA(t *testing.T) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubernetes"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

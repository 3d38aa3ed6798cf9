package awsprovider

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// managerKubeconfig is what the control planes publish: a ServiceAccount
// token (a JWT) expiring at exp.
func managerKubeconfig(exp time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	token := enc([]byte(`{"alg":"RS256"}`)) + "." +
		enc([]byte(fmt.Sprintf(`{"exp":%d,"sub":"system:serviceaccount:kube-system:kubeopera-manager"}`, exp.Unix()))) + ".c2ln"
	return "apiVersion: v1\nkind: Config\nclusters:\n- name: kubeopera\n  cluster:\n    server: https://api.example:6443\n" +
		"users:\n- name: kubeopera-manager\n  user:\n    token: " + token + "\n" +
		"contexts:\n- name: kubeopera-manager\n  context:\n    cluster: kubeopera\n    user: kubeopera-manager\n" +
		"current-context: kubeopera-manager\n"
}

// Kubeconfig returns the published token's expiry, so the host fetches a
// new one through the plugin before it runs out; a token nobody renewed is
// refused with what to check.
func TestVanillaKubeconfigCarriesTheTokensExpiry(t *testing.T) {
	aws := fakeAWS(t)
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	cfg, err := awsapi.Config(context.Background(), sdk.Credentials{"kind": "access_key",
		"accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}, "eu-north-1")
	if err != nil {
		t.Fatal(err)
	}
	const param = "/kubeopera/c1/n0nce/admin-kubeconfig"
	out := outputs(t, map[string]any{"kubeconfig_parameter": param})
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	v := vanilla{kubeconfigWait: time.Second, clock: func() time.Time { return now }}

	exp := now.Add(2 * time.Hour)
	aws.SSM.Put(param, fakeaws.SecureString, managerKubeconfig(exp))
	kc, err := v.kubeconfig(context.Background(), cfg, operation{ClusterID: "c1"}, out)
	if err != nil || !kc.ExpiresAt.Equal(exp) || !strings.Contains(string(kc.Data), "token: ") {
		t.Fatalf("Kubeconfig = expires %s, %v; want the token's exp %s", kc.ExpiresAt, err, exp)
	}

	aws.SSM.Put(param, fakeaws.SecureString, managerKubeconfig(now.Add(time.Minute)))
	_, err = v.kubeconfig(context.Background(), cfg, operation{ClusterID: "c1"}, out)
	if sdk.KindOf(err) != sdk.KindUnavailable || !strings.Contains(err.Error(), "kubeopera-refresh-credential") {
		t.Errorf("a token a minute from its end: %v, want Unavailable naming the timer to check", err)
	}

	// A cluster bootstrapped before the manager account: no token, no expiry.
	aws.SSM.Put(param, fakeaws.SecureString, "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    client-certificate-data: eA==\n")
	kc, err = v.kubeconfig(context.Background(), cfg, operation{ClusterID: "c1"}, out)
	if err != nil || !kc.ExpiresAt.IsZero() {
		t.Errorf("certificate kubeconfig: expires %s, %v; want no expiry", kc.ExpiresAt, err)
	}
}

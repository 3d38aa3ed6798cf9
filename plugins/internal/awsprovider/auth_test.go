package awsprovider

import (
	"context"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/fakeaws"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// An assume_role credential with resolved source keys is assumed by
// terraform's provider itself (it renews the session); the environment
// carries the source keys, never a one-hour session token. The role is
// still assumed once up front, so a bad one fails before terraform runs.
func TestTerraformAssumesTheRoleItself(t *testing.T) {
	aws := fakeaws.Start(t)
	for k, v := range aws.Env() {
		t.Setenv(k, v)
	}
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	roleARN := aws.IAM.AddRole("123456789012", "deployer", "ext-1")
	creds := sdk.Credentials{"kind": "assume_role", "roleArn": roleARN, "externalId": "ext-1",
		"sourceAccessKeyId": user.AccessKeyID, "sourceSecretAccessKey": user.SecretAccessKey}
	p := Vanilla("test")
	env, role, err := p.terraformAuth(context.Background(), creds, "eu-north-1")
	if err != nil {
		t.Fatal(err)
	}
	if env["AWS_ACCESS_KEY_ID"] != user.AccessKeyID || env["AWS_SESSION_TOKEN"] != "" ||
		role == nil || role.RoleARN != roleARN || role.ExternalID != "ext-1" || role.SessionName != "kubeopera" {
		t.Fatalf("env keys %q token %q, role %+v", env["AWS_ACCESS_KEY_ID"], env["AWS_SESSION_TOKEN"], role)
	}
	m, err := p.flavour.module("c1", map[string]string{"region": "eu-north-1", "controlPlaneCount": "1", "nodeCount": "1",
		"instanceType": "t3.medium", "kubernetesVersion": "1.36", "apiAllowedCIDRs": "203.0.113.0/24"}, role)
	if err != nil {
		t.Fatal(err)
	}
	root := string(m.Files["main.tf"])
	if !strings.Contains(root, "assume_role {") || !strings.Contains(root, `role_arn     = "`+roleARN+`"`) ||
		!strings.Contains(root, `external_id  = "ext-1"`) {
		t.Errorf("provider block does not assume the role:\n%s", root)
	}
	bad := sdk.Credentials{"kind": "assume_role", "roleArn": roleARN, "externalId": "wrong",
		"sourceAccessKeyId": user.AccessKeyID, "sourceSecretAccessKey": user.SecretAccessKey}
	if _, _, err := p.terraformAuth(context.Background(), bad, "eu-north-1"); err == nil {
		t.Error("a role that cannot be assumed was handed to terraform")
	}
	keys := sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}
	if _, role, err := p.terraformAuth(context.Background(), keys, "eu-north-1"); err != nil || role != nil {
		t.Errorf("access key: role %+v, %v; want keys only", role, err)
	}
}

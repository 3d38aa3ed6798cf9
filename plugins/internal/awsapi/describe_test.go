package awsapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
)

func TestDescribeInstanceTypeAgainstTheEC2Endpoint(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	alice := s.IAM.AddUser(account, "alice")
	ctx := context.Background()

	it, err := DescribeInstanceType(ctx, newConfig(t, accessKey(alice)), "m7g.large")
	if err != nil || it.VCPUs != 2 || it.MemoryMiB != 8192 || fmt.Sprint(it.Architectures) != "[arm64]" {
		t.Fatalf("m7g.large = %+v, %v", it, err)
	}
	// Temporary credentials sign with their session token.
	temp := assumed(t, s, alice)
	if _, err := DescribeInstanceType(ctx, newConfig(t, accessKey(temp)), "t3.medium"); err != nil {
		t.Fatalf("with an assumed role's keys: %v", err)
	}
	if _, err := DescribeInstanceType(ctx, newConfig(t, accessKey(alice)), "t9.huge"); !errors.Is(err, ErrNoSuchInstanceType) {
		t.Errorf("unknown type: %v, want ErrNoSuchInstanceType", err)
	}
	wrong := alice
	wrong.SecretAccessKey = strings.Repeat("w", len(alice.SecretAccessKey))
	_, err = DescribeInstanceType(ctx, newConfig(t, accessKey(wrong)), "t3.medium")
	assertInvalidInput(t, err, "credentials")
	assertNoSecret(t, err.Error(), wrong)
	if n := s.EC2.Calls(); n != 3 {
		t.Errorf("EC2 answered %d DescribeInstanceTypes calls, want 3 (the badly signed one refused before)", n)
	}
}

func TestClusterVersionStatusAgainstTheEKSEndpoint(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	cfg := newConfig(t, accessKey(s.IAM.AddUser(account, "alice")))
	for minor, want := range map[string]string{"1.35": StandardSupport, "1.33": ExtendedSupport, "1.31": ""} {
		got, err := ClusterVersionStatus(context.Background(), cfg, minor)
		if err != nil || got != want {
			t.Errorf("ClusterVersionStatus(%s) = %q, %v; want %q", minor, got, err, want)
		}
	}
	s.EKS.SetVersions(fakeaws.ClusterVersion{Version: "1.35", Status: fakeaws.Unsupported})
	if got, err := ClusterVersionStatus(context.Background(), cfg, "1.35"); err != nil || got != Unsupported {
		t.Errorf("after EKS dropped 1.35: %q, %v", got, err)
	}
	stranger := newConfig(t, accessKey(fakeaws.Principal{AccessKeyID: "AKIAZZZZZZZZZZZZZZZZ", SecretAccessKey: "s"}))
	_, err := ClusterVersionStatus(context.Background(), stranger, "1.35")
	assertInvalidInput(t, err, "credentials")
}

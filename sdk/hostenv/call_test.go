package hostenv

import (
	"context"
	"errors"
	"maps"
	"os/exec"
	"slices"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
)

var info = sdk.Info{Schema: []sdk.InputField{
	{Name: "region", Type: sdk.String, Default: "eu-north-1"},
	{Name: "nodes", Type: sdk.Int, Default: "2"},
	{Name: "sshKey", Type: sdk.String, Secret: true},
	{Name: "credentialRef", Type: sdk.CredentialRef, CredentialKinds: []string{"token"}},
}}

// store is a credential store of two credentials.
func store(_ context.Context, id string) (sdk.Credentials, error) {
	switch id {
	case "tok":
		return Credential("token", map[string]string{"token": "t-1"}), nil
	case "aws":
		return Credential("aws", map[string]string{"accessKeyId": "AKIA"}), nil
	case "broken":
		return nil, errors.New("database is down")
	}
	return nil, sdk.NotFound("no credential %q", id)
}

func TestBuildCallIsWhatTheServerSends(t *testing.T) {
	c, err := BuildCall(context.Background(), info, map[string]string{"nodes": "3", "sshKey": "k", "credentialRef": "tok"}, store)
	if err != nil {
		t.Fatal(err)
	}
	wantInputs := map[string]string{"region": "eu-north-1", "nodes": "3", "sshKey": "k", "credentialRef": "tok"}
	if !maps.Equal(c.Inputs, wantInputs) {
		t.Errorf("Inputs = %v, want the defaults applied: %v", c.Inputs, wantInputs)
	}
	if got := c.ValidateRequest().Inputs; len(got) != 3 {
		t.Errorf("Validate gets %v, want the inputs as requested", got)
	}
	if !maps.Equal(c.Secret, map[string]string{"sshKey": "k"}) || c.Plain["sshKey"] != "" || c.Plain["region"] == "" {
		t.Errorf("Plain %v, Secret %v: want sshKey alone secret", c.Plain, c.Secret)
	}
	if c.CredentialRef != "tok" || !maps.Equal(c.Credentials, sdk.Credentials{"kind": "token", "token": "t-1"}) {
		t.Errorf("credential %q %v, want tok with its kind", c.CredentialRef, c.Credentials)
	}
	if d := c.DestroyRequest("c1"); d.Inputs["sshKey"] != "" || d.ClusterID != "c1" {
		t.Errorf("Destroy gets %v: the controller passes the plain inputs", d)
	}
	if p := c.ProvisionRequest("c1"); !maps.Equal(p.Inputs, wantInputs) || p.Credentials["kind"] != "token" {
		t.Errorf("Provision gets %v", p)
	}
}

func TestBuildCallRefusesWhatTheServerRefuses(t *testing.T) {
	cases := []struct {
		name, ref, want string
	}{
		{"a credential of another kind", "aws", "inputs.credentialRef: is a aws credential; this provider takes token"},
		{"no such credential", "gone", "inputs.credentialRef: no stored cloud credential has this ID (see GET /api/v1/credentials)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BuildCall(context.Background(), info, map[string]string{"credentialRef": tc.ref}, store)
			fields := sdk.FieldErrors(err)
			if !errors.Is(err, sdk.ErrInvalidInput) || len(fields) != 1 || fields[0].String() != tc.want {
				t.Fatalf("err = %v, want InvalidInput %q", err, tc.want)
			}
		})
	}
	if _, err := BuildCall(context.Background(), info, map[string]string{"credentialRef": "broken"}, store); err == nil || errors.Is(err, sdk.ErrInvalidInput) {
		t.Errorf("a store that fails gave %v, want its own error", err)
	}
}

func TestBuildCallWithoutCredential(t *testing.T) {
	c, err := BuildCall(context.Background(), info, nil, store)
	if err != nil || c.Credentials != nil || c.CredentialRef != "" {
		t.Fatalf("no credential input value: %v %v %q", err, c.Credentials, c.CredentialRef)
	}
}

// The launch passes the plugin only the allow-listed environment, with the
// host's start timeout and its own TLS identity.
func TestClientConfigLaunchesAsTheHost(t *testing.T) {
	path, err := exec.LookPath("true")
	if err != nil {
		t.Skip(err)
	}
	cfg := ClientConfig(path, "aws-eks", []string{"PATH=/usr/bin", "KUBEOPERA_ENCRYPTION_KEY=secret"}, nil)
	for _, f := range cfg.Cmd.ExtraFiles {
		defer f.Close()
	}
	if !cfg.SkipHostEnv || cfg.StartTimeout != StartTimeout {
		t.Errorf("SkipHostEnv %v, StartTimeout %v", cfg.SkipHostEnv, cfg.StartTimeout)
	}
	if !slices.Contains(cfg.Cmd.Env, "PATH=/usr/bin") || slices.Contains(cfg.Cmd.Env, "KUBEOPERA_ENCRYPTION_KEY=secret") {
		t.Errorf("env %q: want PATH and not the host's key", cfg.Cmd.Env)
	}
	if cfg.AutoMTLS || cfg.TLSConfig == nil {
		t.Errorf("want the SDK's mutual TLS with identities of this launch (AutoMTLS %v)", cfg.AutoMTLS)
	}
}

func TestCurrentInputsAreTheClusterAsItIs(t *testing.T) {
	info := sdk.Info{NodeCountInput: "nodes", VersionInput: "version"}
	orig := map[string]string{"nodes": "2", "version": "1.37", "region": "fsn1"}
	got := CurrentInputs(info, orig, 3, "v1.37.2")
	if want := map[string]string{"nodes": "3", "version": "v1.37.2", "region": "fsn1"}; !maps.Equal(got, want) {
		t.Errorf("CurrentInputs = %v, want %v", got, want)
	}
	if orig["nodes"] != "2" {
		t.Errorf("CurrentInputs changed the original inputs: %v", orig)
	}
	if got := CurrentInputs(info, orig, 0, ""); !maps.Equal(got, orig) {
		t.Errorf("nothing observed: %v, want the original inputs", got)
	}
}

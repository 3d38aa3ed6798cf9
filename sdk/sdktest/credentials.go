package sdktest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
)

// credentialID is the ID under which the kit "stores" Config.Credentials
// when Config.ValidInputs names none in the schema's credential input.
const credentialID = "sdktest-credential"

// buildCall builds the inputs and credential of the kit's calls as the
// server does (hostenv.BuildCall): Config.Credentials is stored under the
// ID Config.ValidInputs gives the schema's credential input (credentialID
// when it gives none); the plugin receives its fields and its "kind".
func (k *kit) buildCall(t *testing.T) {
	t.Helper()
	inputs := maps.Clone(k.cfg.ValidInputs)
	if inputs == nil {
		inputs = map[string]string{}
	}
	var stored sdk.Credentials
	var ref string // the ID Config.Credentials is stored under
	field, ok := sdk.CredentialInput(k.info.Schema)
	if ok && len(k.cfg.Credentials) > 0 {
		kind := k.cfg.Credentials["kind"]
		if kind == "" && len(field.CredentialKinds) == 1 {
			kind = field.CredentialKinds[0]
		}
		if kind == "" {
			t.Fatalf("Config.Credentials has no \"kind\" and input %q accepts kinds %v: set \"kind\" to the one the credential is "+
				"(the server always sends it)", field.Name, field.CredentialKinds)
		}
		fields := maps.Clone(k.cfg.Credentials)
		delete(fields, "kind")
		stored = hostenv.Credential(kind, fields)
		if inputs[field.Name] == "" {
			inputs[field.Name] = credentialID
		}
		ref = inputs[field.Name]
	}
	k.cfg.ValidInputs = inputs // the invalid variations start from what the server sends
	open := func(_ context.Context, id string) (sdk.Credentials, error) {
		if stored == nil || id != ref {
			return nil, sdk.NotFound("no stored credential %q", id)
		}
		return stored, nil
	}
	call, err := hostenv.BuildCall(context.Background(), k.info, inputs, open)
	if errors.Is(err, sdk.ErrInvalidInput) {
		t.Fatalf("the server refuses a cluster with Config.ValidInputs and Config.Credentials: %v", err)
	} else if err != nil {
		t.Fatalf("build the call as the server does: %v", err)
	}
	k.call = call
}

// credentialsAsTheServerSeesThem checks what KubeOpera's server checks
// before a plugin ever sees a credential: the server stores a credential
// only of a kind a loaded plugin declares (checked field by field against
// that declaration), and hands its fields to a plugin only for a cluster
// whose input of type sdk.CredentialRef names it. A plugin whose credential
// input is a plain string, or whose kinds are declared nowhere, passes its
// own calls here yet never gets a credential from the server.
func (k *kit) credentialsAsTheServerSeesThem(t *testing.T) {
	declared := map[string]sdk.CredentialKind{}
	for _, kind := range k.info.CredentialKinds {
		declared[kind.Name] = kind
	}
	for _, f := range k.info.Schema {
		if f.Type != sdk.CredentialRef && looksLikeCredential(f.Name) {
			t.Errorf("input %q is typed %s: a credential input must be of type sdk.CredentialRef (with CredentialKinds), "+
				"or the server stores its value as a plain input and passes the plugin no credential", f.Name, f.Type)
		}
		for _, name := range f.CredentialKinds {
			if _, ok := declared[name]; f.Type == sdk.CredentialRef && !ok {
				t.Errorf("input %q accepts credential kind %q, which Info.CredentialKinds does not declare: "+
					"the server refuses to store a credential of a kind no plugin declares", f.Name, name)
			}
		}
	}
	if len(k.cfg.Credentials) == 0 {
		return
	}
	field, ok := sdk.CredentialInput(k.info.Schema)
	if !ok {
		t.Errorf("Config.Credentials is set but the schema has no input of type sdk.CredentialRef: the server passes credentials " +
			"only for a cluster whose credential input names a stored credential, so this plugin would never get them")
		return
	}
	kindName := k.call.Credentials["kind"]
	kind, ok := declared[kindName]
	if !ok || !slices.Contains(field.CredentialKinds, kindName) {
		t.Errorf("Config.Credentials is of kind %q, which input %q (kinds %v) or Info.CredentialKinds does not accept: the server would refuse it",
			kindName, field.Name, field.CredentialKinds)
		return
	}
	for _, e := range sdk.CheckCredential(kind, k.cfg.Credentials) {
		t.Errorf("Config.Credentials does not match the declared kind %q, so the server would refuse to store it: %s", kindName, e)
	}
}

// looksLikeCredential: the names a credential input is given.
func looksLikeCredential(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, "credentialref") || strings.HasSuffix(n, "credential") || n == "credentials"
}

// serverAccepts fails t unless the plugin's Validate accepts the call the
// server makes before it records a cluster (hostenv.Call.ValidateRequest):
// the server calls it for every provision and refuses the provision with
// the plugin's answer, which the user cannot change when it is about what
// the server sends (the credential's "kind", say).
func (k *kit) serverAccepts(t *testing.T) {
	t.Helper()
	if err := k.prov.Validate(k.ctx(t), k.call.ValidateRequest()); err != nil {
		t.Fatalf("the server refuses every cluster of this plugin: it calls Validate with Config.ValidInputs and Config.Credentials "+
			"as it sends them (the credential input naming the credential, the credential's fields and \"kind\"), and refuses the "+
			"provision with the answer: %v", err)
	}
}

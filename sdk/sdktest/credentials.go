package sdktest

import (
	"slices"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
)

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
	kindName, ok := k.cfg.Credentials["kind"]
	if !ok {
		return // the author left the kind out; nothing to compare
	}
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

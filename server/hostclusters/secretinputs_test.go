package hostclusters

import (
	"encoding/json"
	"strings"
	"testing"
)

// A secret input reaches the management cluster only in its Secret: the
// HostCluster names the Secret and carries no value.
func TestSecretInputsGoToASecretAndTheSpecHoldsAReference(t *testing.T) {
	s := Spec{ID: "c1", Mode: Provision, Plugin: "hetzner", Inputs: map[string]string{"location": "fsn1"},
		SecretInputs: map[string]string{"apiToken": "tok-very-secret"}}
	obj, err := json.Marshal(toObject(s, false).Object)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(obj), "tok-very-secret") || !strings.Contains(string(obj), `"secretInputsRef":"hostcluster-c1-inputs"`) {
		t.Errorf("HostCluster = %s, want a reference and no secret", obj)
	}
	secrets := secretsOf(s)
	if got := string(secrets[SecretInputsName("c1")]["apiToken"]); got != "tok-very-secret" || len(secrets) != 1 {
		t.Errorf("secrets = %v, want only the inputs Secret holding the token", secrets)
	}
	if _, ok := secretsOf(Spec{ID: "c2", Inputs: map[string]string{"a": "b"}})[SecretInputsName("c2")]; ok {
		t.Error("a provision without secret inputs made an inputs Secret")
	}
}

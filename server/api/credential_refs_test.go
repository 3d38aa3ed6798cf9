package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// A credential an assume_role credential takes its keys from cannot go
// before that one (409 naming it); then it can.
func TestDeleteCredentialRefusedWhileAnAssumeRoleUsesIt(t *testing.T) {
	e := newEnv(t, envOpts{})
	src := createAccessKey(t, e, "aws-source")
	code, body := e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{"label": "deploy-role", "kind": "assume_role",
		"roleArn": "arn:aws:iam::123456789012:role/kubeopera", "sourceCredentialRef": src.ID})
	mustStatus(t, "assume role", code, body, 201)
	role := decode[store.Credential](t, body)

	code, body = e.do(http.MethodDelete, "/api/v1/credentials/"+src.ID, e.admin, nil)
	if code != 409 || !strings.Contains(string(body), `credentials \"deploy-role\" (assume_role)`) {
		t.Errorf("delete the source of an assume_role credential: %d %s", code, body)
	}
	code, body = e.do(http.MethodDelete, "/api/v1/credentials/"+role.ID, e.admin, nil)
	mustStatus(t, "delete the assume_role credential", code, body, 204)
	code, body = e.do(http.MethodDelete, "/api/v1/credentials/"+src.ID, e.admin, nil)
	mustStatus(t, "delete the source once nothing uses it", code, body, 204)
}

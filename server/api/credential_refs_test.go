package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
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

// Credentials sealed before source_id existed get it from their payload
// at start, after which the database itself keeps their source.
func TestRecordCredentialSourcesFillsTheColumnFromThePayload(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		src := createAccessKey(t, e, "aws-source")
		code, body := e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{"label": "deploy-role", "kind": "assume_role",
			"roleArn": "arn:aws:iam::123456789012:role/kubeopera", "sourceCredentialRef": src.ID})
		mustStatus(t, "assume role", code, body, 201)
		role := decode[store.Credential](t, body)
		if err := e.st.SetCredentialSource(ctx, role.ID, nil); err != nil { // as a row from before
			t.Fatal(err)
		}
		if err := RecordCredentialSources(ctx, e.st, e.keys, discardLogger()); err != nil {
			t.Fatal(err)
		}
		var conflict *store.ConflictError
		if err := e.st.DeleteCredential(ctx, src.ID); !errors.As(err, &conflict) {
			t.Errorf("deleting the recorded source in the store: %v, want a conflict", err)
		}
	})
}

// An assume_role credential created while its source is deleted: one of
// the two fails, never both succeed.
func TestAssumeRoleCreatedWhileItsSourceIsDeletedNeverBothSucceed(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		both := 0
		for i := range 30 {
			src := createAccessKey(t, e, fmt.Sprintf("source-%02d", i))
			var create, del int
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				create, _ = e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{"label": fmt.Sprintf("role-%02d", i),
					"kind": "assume_role", "roleArn": "arn:aws:iam::123456789012:role/kubeopera", "sourceCredentialRef": src.ID})
			}()
			go func() { defer wg.Done(); del, _ = e.do(http.MethodDelete, "/api/v1/credentials/"+src.ID, e.admin, nil) }()
			wg.Wait()
			if create == http.StatusCreated && del == http.StatusNoContent {
				both++
			}
		}
		if both > 0 {
			t.Errorf("%d of 30 pairs created an assume_role and deleted its source", both)
		}
	})
}

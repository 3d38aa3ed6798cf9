package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// The refusals of the people routes a client can meet: a wrong `admin`
// value on the kubeconfig route, and a password change with the wrong
// current password, then past the sign-in limit.
func TestPeopleRoutesRefuseWhatTheyDocument(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	row := &store.Cluster{Name: "kc", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Ready"}
	if err := e.st.CreateCluster(ctx, row); err != nil {
		t.Fatal(err)
	}
	code, body := e.do(http.MethodGet, "/api/v1/clusters/"+row.ID+"/kubeconfig?admin=maybe", e.admin, nil)
	mustStatus(t, "admin=maybe", code, body, 400)

	u, err := NewUser("fay", "fay@example.com", "a-long-enough-password-1", Viewer)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	change := map[string]string{"username": "fay", "password": "not-the-password-at-all", "newPassword": "another-long-password-2"}
	code, body = e.do(http.MethodPost, "/api/v1/session/password", "", change)
	mustStatus(t, "a wrong current password", code, body, 401)
	for code == http.StatusUnauthorized {
		code, body = e.do(http.MethodPost, "/api/v1/session/password", "", change)
	}
	mustStatus(t, "past the limit", code, body, 429)
}

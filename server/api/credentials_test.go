package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

func TestCredentialsAreSealedAndNeverShown(t *testing.T) {
	e := newEnv(t, envOpts{})
	cred := createAccessKey(t, e, "aws-prod")
	if !strings.HasSuffix(cred.Last4, "MPLE") || strings.Contains(cred.Last4, "AKIA") || cred.CreatedBy != "test-platform-admin" {
		t.Errorf("credential = %+v", cred)
	}
	var all []string
	for _, path := range []string{"/api/v1/credentials", "/api/v1/credentials/" + cred.ID} {
		code, body := e.do(http.MethodGet, path, e.admin, nil)
		mustStatus(t, path, code, body, 200)
		all = append(all, string(body))
	}
	row, err := e.st.GetCredential(context.Background(), cred.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(row.Ciphertext), testSecretKey) || row.KeyID != e.keys.PrimaryID() {
		t.Fatalf("stored credential is not sealed with the primary key")
	}
	plain, err := e.keys.Open(row.Ciphertext, row.KeyID, []byte(row.ID))
	if err != nil {
		t.Fatal(err)
	}
	var p payload
	if err := json.Unmarshal(plain, &p); err != nil || p["secretAccessKey"] != testSecretKey {
		t.Errorf("sealed payload does not open to the secret: %v", err)
	}
	for _, body := range append(all, e.logs.String()) {
		if strings.Contains(body, testSecretKey) || strings.Contains(body, testAccessKeyID) {
			t.Errorf("a response or log line shows the credential: %s", body)
		}
	}

	code, body := e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{"label": "aws-prod", "kind": "access_key",
		"accessKeyId": testAccessKeyID, "secretAccessKey": testSecretKey})
	if code != 409 {
		t.Errorf("duplicate label: %d %s", code, body)
	}
	code, body = e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{"label": "role", "kind": "assume_role",
		"roleArn": "arn:aws:iam::123456789012:role/kubeopera", "sourceCredentialRef": cred.ID, "externalId": "ext-1"})
	mustStatus(t, "assume role", code, body, 201)
	code, body = e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{"label": "bad", "kind": "assume_role",
		"roleArn": "role", "sourceCredentialRef": "missing"})
	if prob := decode[Problem](t, body); code != 400 || len(prob.Fields) != 2 {
		t.Errorf("bad assume role: %d %+v", code, prob)
	}
	code, body = e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{"label": "k", "kind": "access_key",
		"accessKeyId": "AKIA", "secretAccessKey": "short"})
	if prob := decode[Problem](t, body); code != 400 || len(prob.Fields) != 2 || strings.Contains(string(body), "short\"") {
		t.Errorf("bad access key: %d %s", code, body)
	}
	code, body = e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]any{"label": "h", "kind": "hetzner_token",
		"fields": map[string]string{"token": "x"}})
	if prob := decode[Problem](t, body); code != 400 || len(prob.Fields) != 1 || prob.Fields[0].Field != "kind" ||
		!strings.Contains(prob.Fields[0].Message, "access_key, assume_role") {
		t.Errorf("a kind no loaded plugin declares: %d %s", code, body)
	}
	code, body = e.do(http.MethodPost, "/api/v1/credentials", e.admin, `{"label":`)
	if code != 400 || !strings.Contains(string(body), "not valid JSON") {
		t.Errorf("broken JSON: %d %s", code, body)
	}
	if rows, _ := e.st.ListCredentials(context.Background()); len(rows) != 2 {
		t.Errorf("%d credentials stored, want 2", len(rows))
	}

	// Rotating the secret keeps the ID, re-seals, and still shows nothing.
	newSecret := strings.Repeat("N", 40)
	code, body = e.do(http.MethodPatch, "/api/v1/credentials/"+cred.ID, e.admin, map[string]string{"label": "aws-prod-2", "secretAccessKey": newSecret})
	mustStatus(t, "patch", code, body, 200)
	if strings.Contains(string(body), newSecret) || decode[store.Credential](t, body).Label != "aws-prod-2" {
		t.Errorf("patch response: %s", body)
	}
	row, _ = e.st.GetCredential(context.Background(), cred.ID)
	plain, _ = e.keys.Open(row.Ciphertext, row.KeyID, []byte(row.ID))
	if err := json.Unmarshal(plain, &p); err != nil || p["secretAccessKey"] != newSecret || p["accessKeyId"] != testAccessKeyID {
		t.Errorf("after patch the payload is %v", err)
	}
	code, body = e.do(http.MethodPatch, "/api/v1/credentials/"+cred.ID, e.admin, map[string]string{"kind": "assume_role"})
	if code != 400 || !strings.Contains(string(body), "cannot change") {
		t.Errorf("changing kind: %d %s", code, body)
	}
}

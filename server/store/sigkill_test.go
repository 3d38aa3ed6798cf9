package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
)

// childDSNVar makes the test binary a child that writes credentials with
// their audit events until it is killed.
const childDSNVar = "KUBEOPERA_TEST_SIGKILL_CHILD_DSN"

// A process killed with SIGKILL while it stores credentials leaves each
// stored credential with its audit event: the two commit together.
func TestCredentialAndAuditEventSurviveSIGKILLTogether(t *testing.T) {
	if dsn := os.Getenv(childDSNVar); dsn != "" {
		writeCredentialsForever(t, dsn)
		return
	}
	for _, db := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{DialectSQLite, func(t *testing.T) string { return filepath.Join(t.TempDir(), "kubeopera.db") }},
		{DialectPostgres, func(t *testing.T) string { return testpg.Database(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			dsn := db.dsn(t)
			openForTest(t, dsn).Close() // migrate before the child starts
			for round := range 3 {
				child := exec.Command(os.Args[0], "-test.run=^TestCredentialAndAuditEventSurviveSIGKILLTogether$")
				child.Env = append(os.Environ(), childDSNVar+"="+dsn)
				if err := child.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Duration(400+200*round) * time.Millisecond)
				_ = child.Process.Kill() // SIGKILL
				_ = child.Wait()
			}
			s := openForTest(t, dsn)
			ctx := context.Background()
			creds, err := s.ListCredentials(ctx)
			if err != nil {
				t.Fatal(err)
			}
			events, err := s.ListAuditEvents(ctx, AuditFilter{Limit: 100000})
			if err != nil {
				t.Fatal(err)
			}
			audited := map[string]bool{}
			for _, ev := range events {
				audited[ev.Target] = true
			}
			t.Logf("after 3 SIGKILLs: %d credentials, %d audit events", len(creds), len(events))
			if len(creds) == 0 {
				t.Fatal("the child stored no credential before it was killed: nothing was tested")
			}
			for _, c := range creds {
				if !audited[c.ID] {
					t.Errorf("credential %s was stored without its audit event", c.Label)
				}
			}
			if len(events) != len(creds) {
				t.Errorf("%d audit events for %d credentials", len(events), len(creds))
			}
		})
	}
}

func writeCredentialsForever(t *testing.T, dsn string) {
	ctx := context.Background()
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("p%d-", os.Getpid())
	for i := 0; ; i++ {
		c := &Credential{Label: prefix + fmt.Sprint(i), Kind: "access_key", Ciphertext: []byte(strings.Repeat("x", 64)), KeyID: "k"}
		ev := &AuditEvent{Actor: "ops", Method: "POST", Route: "/api/v1/credentials", Status: 201, RequestID: fmt.Sprint(i)}
		if err := s.CreateCredential(ctx, c, ev); err != nil {
			t.Fatal(err)
		}
	}
}

package api

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// TestDeletingACredentialWhileAClusterIsProvisionedWithItNeverBothSucceed
// sends pairs of POST /clusters/provision and DELETE /credentials/{id} for
// the same credential at once: the database must let one of them win.
func TestDeletingACredentialWhileAClusterIsProvisionedWithItNeverBothSucceed(t *testing.T) {
	const pairs = 32
	for _, db := range []struct {
		name     string
		postgres bool
	}{{store.DialectSQLite, false}, {store.DialectPostgres, true}} {
		t.Run(db.name, func(t *testing.T) {
			e := newEnv(t, envOpts{management: true, postgres: db.postgres})
			creds := make([]store.Credential, pairs)
			for i := range creds {
				creds[i] = createAccessKey(t, e, fmt.Sprintf("race-%02d", i))
			}
			var (
				wg                      sync.WaitGroup
				mu                      sync.Mutex
				both, provOnly, delOnly int
			)
			for i, cred := range creds {
				wg.Add(2)
				start := make(chan struct{})
				var prov, del int
				go func() {
					defer wg.Done()
					<-start
					prov, _ = e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, provisionBody(fmt.Sprintf("race-%02d", i), "aws-eks",
						map[string]string{"region": "eu-north-1", "credentialRef": cred.ID, "apiAllowedCIDRs": "203.0.113.0/24"}))
				}()
				go func() {
					defer wg.Done()
					<-start
					del, _ = e.do(http.MethodDelete, "/api/v1/credentials/"+cred.ID, e.admin, nil)
				}()
				close(start)
				wg.Wait()
				mu.Lock()
				switch {
				case prov == http.StatusAccepted && del == http.StatusNoContent:
					both++
				case prov == http.StatusAccepted:
					provOnly++
				case del == http.StatusNoContent:
					delOnly++
				default:
					t.Errorf("pair %d: provision %d, delete %d; want exactly one to succeed", i, prov, del)
				}
				mu.Unlock()
			}
			t.Logf("%d pairs: both succeeded %d, provision only %d, delete only %d", pairs, both, provOnly, delOnly)
			if both > 0 {
				t.Errorf("%d of %d pairs both succeeded: clusters reference a deleted credential", both, pairs)
			}
			clusters, err := e.st.ListClusters(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range clusters {
				if c.CredentialID == nil {
					continue
				}
				if _, err := e.st.GetCredential(context.Background(), *c.CredentialID); err != nil {
					t.Errorf("cluster %s references credential %s: %v", c.Name, *c.CredentialID, err)
				}
			}
		})
	}
}

package awsapi

import (
	"context"
	"fmt"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/fakeaws"
)

// DeletePath pages through the path (SSM answers 10 at a time) and deletes
// in batches of 10; parameters outside the path stay.
func TestDeletePathDeletesEverythingUnderThePathOnly(t *testing.T) {
	s := fakeaws.Start(t)
	withEnv(t, s)
	cfg := newConfig(t, accessKey(s.IAM.AddUser(account, "alice")))
	for i := range 23 {
		s.SSM.Put(fmt.Sprintf("/kubeopera/c1/n0nce/workers/i-%02d", i), "String", "joined")
	}
	s.SSM.Put("/kubeopera/c1/n0nce/admin-kubeconfig", "SecureString", "apiVersion: v1")
	s.SSM.Put("/kubeopera/c1/other/members/0", "String", "ready")
	s.SSM.Put("/kubeopera/c1/n0nce2/members/0", "String", "ready")
	n, err := DeletePath(context.Background(), NewSSM(cfg), "/kubeopera/c1/n0nce")
	if err != nil || n != 24 {
		t.Fatalf("DeletePath = %d, %v; want 24 deleted", n, err)
	}
	if left := s.SSM.Names("/kubeopera/c1/n0nce"); len(left) != 0 {
		t.Errorf("left under the path: %v", left)
	}
	if left := s.SSM.Names("/kubeopera/c1"); len(left) != 2 {
		t.Errorf("parameters outside the path: %v, want the 2 others kept", left)
	}
}

package pipeline

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"

	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitrepo"
	"github.com/ochestra-tech/kubeopera/internal/gitserver"
)

// uploadPacks counts the fetches the server has answered.
func uploadPacks(s *gitserver.Server) int {
	n := 0
	for _, r := range s.Requests() {
		if strings.HasPrefix(r, "POST ") && strings.Contains(r, "/git-upload-pack ") {
			n++
		}
	}
	return n
}

// The pipeline's judge reads the cluster's own repository with its
// credentials, regenerates the pushed files for the force-push case, and
// asks the repository once per revision whose verdict cannot change.
func TestHoldsAsksTheRepositoryOncePerRevision(t *testing.T) {
	ctx := context.Background()
	git := gitserver.Start(t, gitserver.Options{Username: "kubeopera", Password: gitPassword})
	url := git.CreateRepo(t, "fleet")
	creds := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "git-creds", Namespace: v1.Namespace},
		Data: map[string][]byte{"username": []byte("kubeopera"), "password": []byte(gitPassword)}}
	mgmt := fake.NewClientBuilder().WithScheme(mgmtScheme).WithObjects(creds).Build()
	p := New(Options{Management: mgmt})
	hc := stepCluster()
	hc.Spec.GitOpsRepoURL, hc.Spec.GitCredentialsSecretRef, hc.Spec.Domain = url, "git-creds", "c1.example.com"
	tree, err := gitops.Generate(p.params(hc))
	if err != nil {
		t.Fatal(err)
	}
	auth := gitrepo.Auth{Username: "kubeopera", Password: gitPassword}
	own, err := gitrepo.Publish(ctx, auth, gitrepo.Push{URL: url, Path: hc.Spec.GitOpsPath, Files: tree})
	if err != nil {
		t.Fatal(err)
	}
	hc.Status.GitOpsRevision = own.Commit
	later := git.CommitDirect(t, "fleet", "main", "clusters/c2/a.yaml", "a\n", "another cluster")

	holds := p.holds(hc)
	before := uploadPacks(git)
	for i := range 2 {
		ok, why, err := holds(ctx, later)
		if err != nil || !ok || why != later[:12]+" descends from "+own.Commit[:12] {
			t.Fatalf("call %d: holds = %v %q %v, want held by ancestry", i, ok, why, err)
		}
	}
	if n := uploadPacks(git) - before; n != 1 {
		t.Errorf("%d fetches for one revision asked twice, want 1", n)
	}
	p.Forget(hc)
	if _, _, err := holds(ctx, later); err != nil || uploadPacks(git)-before != 2 {
		t.Errorf("after Forget: %v, %d fetches in all; want the repository asked again", err, uploadPacks(git)-before)
	}

	// A force push replaced the cluster's commit with one of the same files.
	git.ResetBranch(t, "fleet", "main", git.Head(t, "fleet", "main")+"~2")
	again, err := gitrepo.Publish(ctx, auth, gitrepo.Push{URL: url, Path: hc.Spec.GitOpsPath, Files: tree, Message: "squashed"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, why, err := holds(ctx, again.Commit); err != nil || !ok || !strings.Contains(why, "has the pushed files") {
		t.Errorf("after a force push: holds = %v %q %v, want held by the regenerated files", ok, why, err)
	}
}

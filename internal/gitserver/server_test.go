package gitserver

import (
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
)

// cli runs the git CLI in dir and returns its combined output and error.
func cli(dir string, args ...string) (string, error) {
	cmd := gitCmd(dir, nil, args...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := cli(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// withAuth puts user:pass into a clone URL the way a user would for the CLI.
func withAuth(url, user, pass string) string {
	return strings.Replace(url, "http://", "http://"+user+":"+pass+"@", 1)
}

func TestCLICloneAndPushWithCredentials(t *testing.T) {
	s := Start(t, Options{Username: "alice", Password: "s3cret-token"})
	url := s.CreateRepo(t, "org/fleet")
	if want := s.URL() + "/org/fleet.git"; url != want {
		t.Fatalf("CreateRepo URL = %q, want %q", url, want)
	}

	dir := filepath.Join(t.TempDir(), "clone")
	mustCLI(t, "", "clone", "--quiet", withAuth(url, "alice", "s3cret-token"), dir)
	if b, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || string(b) != "# org/fleet\n" {
		t.Fatalf("cloned README.md = %q, %v", b, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("kind: A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, dir, "add", "a.yaml")
	mustCLI(t, dir, "commit", "--quiet", "-m", "add a")
	mustCLI(t, dir, "push", "--quiet", "origin", "main")

	local := strings.TrimSpace(mustCLI(t, dir, "rev-parse", "HEAD"))
	if got := s.Head(t, "org/fleet", "main"); got != local {
		t.Errorf("Head = %s, want the pushed commit %s", got, local)
	}
	if got := s.CommitCount(t, "org/fleet", "main"); got != 2 {
		t.Errorf("CommitCount = %d, want 2", got)
	}
	want := map[string]string{"README.md": "# org/fleet\n", "a.yaml": "kind: A\n"}
	if got := s.Files(t, "org/fleet", "main"); !maps.Equal(got, want) {
		t.Errorf("Files = %v, want %v", got, want)
	}
	reqs := s.Requests()
	if !slices.Contains(reqs, "POST /org/fleet.git/git-receive-pack alice") {
		t.Errorf("Requests() = %q, want the authenticated receive-pack POST", reqs)
	}
	for _, r := range reqs {
		if strings.Contains(r, "s3cret-token") {
			t.Errorf("request log %q contains the password", r)
		}
	}
}

func TestAnonymousRequestsToAuthServerGet401(t *testing.T) {
	s := Start(t, Options{Username: "alice", Password: "pw"})
	url := s.CreateRepo(t, "fleet")
	before := s.Head(t, "fleet", "main")

	for _, service := range []string{"git-upload-pack", "git-receive-pack"} {
		resp, err := http.Get(url + "/info/refs?service=" + service)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("%s without auth: status %d, WWW-Authenticate %q; want 401 with a Basic challenge",
				service, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}

	// A push from a clone whose remote has no credentials fails.
	dir := filepath.Join(t.TempDir(), "clone")
	mustCLI(t, "", "clone", "--quiet", withAuth(url, "alice", "pw"), dir)
	mustCLI(t, dir, "remote", "set-url", "origin", url)
	mustCLI(t, dir, "commit", "--quiet", "--allow-empty", "-m", "anon")
	out, err := cli(dir, "push", "origin", "main")
	if err == nil {
		t.Fatalf("anonymous push succeeded:\n%s", out)
	}
	if got := s.Head(t, "fleet", "main"); got != before {
		t.Errorf("branch moved to %s after a rejected anonymous push", got)
	}
	// Wrong password: also refused.
	mustCLI(t, dir, "remote", "set-url", "origin", withAuth(url, "alice", "wrong"))
	if out, err := cli(dir, "push", "origin", "main"); err == nil || !strings.Contains(out, "Authentication failed") {
		t.Errorf("push with a wrong password: err %v, output %q; want an authentication failure", err, out)
	}
}

func TestProtocolV2PassesThrough(t *testing.T) {
	s := Start(t, Options{})
	url := s.CreateRepo(t, "fleet")
	get := func(protocol string) string {
		req, _ := http.NewRequest(http.MethodGet, url+"/info/refs?service=git-upload-pack", nil)
		if protocol != "" {
			req.Header.Set("Git-Protocol", protocol)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if body := get("version=2"); !strings.Contains(body, "version 2\n") || !strings.Contains(body, "ls-refs") {
		t.Errorf("with Git-Protocol: version=2 the advertisement is not v2:\n%q", body)
	}
	if body := get(""); strings.Contains(body, "version 2\n") || !strings.Contains(body, "refs/heads/main") {
		t.Errorf("without Git-Protocol the advertisement is not v0:\n%q", body)
	}
	// The CLI negotiates v2 end to end.
	dir := filepath.Join(t.TempDir(), "clone")
	mustCLI(t, "", "-c", "protocol.version=2", "clone", "--quiet", url, dir)
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Errorf("v2 clone has no README.md: %v", err)
	}
}

func TestRejectPushesRelaysReason(t *testing.T) {
	s := Start(t, Options{})
	url := s.CreateRepo(t, "fleet")
	dir := filepath.Join(t.TempDir(), "clone")
	mustCLI(t, "", "clone", "--quiet", url, dir)
	mustCLI(t, dir, "commit", "--quiet", "--allow-empty", "-m", "x")

	s.RejectPushes("branch main is protected")
	out, err := cli(dir, "push", "origin", "main")
	if err == nil || !strings.Contains(out, "remote: branch main is protected") || !strings.Contains(out, "pre-receive hook declined") {
		t.Fatalf("push to a rejecting server: err %v, output:\n%s", err, out)
	}
	// CommitDirect is not a push: the hook does not apply to it.
	direct := s.CommitDirect(t, "fleet", "main", "b.txt", "b", "direct")
	if s.Head(t, "fleet", "main") != direct {
		t.Fatal("CommitDirect did not move the branch while pushes are rejected")
	}

	s.RejectPushes("")
	mustCLI(t, dir, "pull", "--quiet", "--rebase", "origin", "main")
	mustCLI(t, dir, "push", "--quiet", "origin", "main")
	if got := s.CommitCount(t, "fleet", "main"); got != 3 {
		t.Errorf("CommitCount after the rejection is lifted = %d, want 3", got)
	}
}

func TestGoGitCloneAndPushWithConcurrentCommit(t *testing.T) {
	s := Start(t, Options{Username: "git", Password: "tok"})
	url := s.CreateRepo(t, "fleet")
	auth := &githttp.BasicAuth{Username: "git", Password: "tok"}

	repo, err := gogit.Clone(memory.NewStorage(), nil, &gogit.CloneOptions{URL: url, Auth: auth})
	if err != nil {
		t.Fatalf("go-git clone: %v", err)
	}
	head, _ := repo.Head()
	if head.Hash().String() != s.Head(t, "fleet", "main") {
		t.Fatalf("go-git cloned %s, server has %s", head.Hash(), s.Head(t, "fleet", "main"))
	}
	// An empty commit on top of the clone.
	parent, _ := repo.CommitObject(head.Hash())
	sig := object.Signature{Name: "t", Email: "t@example.test", When: parent.Author.When}
	c := &object.Commit{Author: sig, Committer: sig, Message: "go-git", TreeHash: parent.TreeHash, ParentHashes: []plumbing.Hash{parent.Hash}}
	obj := repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		t.Fatal(err)
	}
	id, _ := repo.Storer.SetEncodedObject(obj)
	if err := repo.Storer.SetReference(plumbing.NewHashReference("refs/heads/main", id)); err != nil {
		t.Fatal(err)
	}

	var calls atomic.Int32
	s.OnReceivePack(func() {
		if calls.Add(1) == 1 {
			s.CommitDirect(t, "fleet", "main", "race.txt", "r", "concurrent")
		}
	})
	push := func() error {
		return repo.Push(&gogit.PushOptions{Auth: auth, RefSpecs: []config.RefSpec{"refs/heads/main:refs/heads/main"}})
	}
	err = push()
	if err == nil {
		t.Fatal("push raced by a concurrent commit succeeded; want a ref-update failure")
	}
	t.Logf("raced push: %v", err)
	if n := calls.Load(); n != 1 {
		t.Fatalf("OnReceivePack called %d times, want 1", n)
	}
	if s.CommitCount(t, "fleet", "main") != 2 || s.Files(t, "fleet", "main")["race.txt"] != "r" {
		t.Fatal("the concurrent commit is not the branch tip")
	}
	// Without the race the same push goes through once rebased onto the tip.
	s.OnReceivePack(nil)
	if err := repo.Fetch(&gogit.FetchOptions{Auth: auth}); err != nil {
		t.Fatalf("go-git fetch: %v", err)
	}
	if err := repo.Storer.SetReference(plumbing.NewHashReference("refs/heads/main", plumbing.NewHash(s.Head(t, "fleet", "main")))); err != nil {
		t.Fatal(err)
	}
	if err := push(); err != nil && err != gogit.NoErrAlreadyUpToDate {
		t.Fatalf("go-git push: %v", err)
	}
}

func TestCreateEmptyRepoHasNoCommits(t *testing.T) {
	s := Start(t, Options{})
	url := s.CreateEmptyRepo(t, "empty")
	dir := filepath.Join(t.TempDir(), "clone")
	out := mustCLI(t, "", "clone", url, dir)
	if !strings.Contains(out, "empty repository") {
		t.Errorf("clone of an empty repo printed %q, want the empty-repository warning", out)
	}
	// The first commit creates the branch.
	sha := s.CommitDirect(t, "empty", "main", "x/y.txt", "y\n", "first")
	if s.Head(t, "empty", "main") != sha || s.CommitCount(t, "empty", "main") != 1 {
		t.Errorf("after the first CommitDirect: head %s count %d", s.Head(t, "empty", "main"), s.CommitCount(t, "empty", "main"))
	}
	if got := s.Files(t, "empty", "main"); !maps.Equal(got, map[string]string{"x/y.txt": "y\n"}) {
		t.Errorf("Files = %v", got)
	}
}

func TestFilesReadsBinaryAndNewlineContent(t *testing.T) {
	s := Start(t, Options{})
	s.CreateRepo(t, "fleet")
	content := "line1\n\x00binary\nno trailing newline"
	s.CommitDirect(t, "fleet", "main", "dir/with space.bin", content, "bin")
	if got := s.Files(t, "fleet", "main")["dir/with space.bin"]; got != content {
		t.Errorf("Files content = %q, want %q", got, content)
	}
}

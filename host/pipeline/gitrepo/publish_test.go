package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/gitserver"
)

const (
	user  = "fleet-bot"
	token = "ghp_s3cretTOKENvalue0123456789"
)

var goodAuth = Auth{Username: user, Password: token}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// fleetRepo is a repository with files inside and outside the pushed path,
// including names that share the path's prefix.
func fleetRepo(t *testing.T, s *gitserver.Server) string {
	url := s.CreateRepo(t, "fleet")
	s.CommitDirect(t, "fleet", "main", "clusters/prod/old.yaml", "old\n", "old")
	s.CommitDirect(t, "fleet", "main", "clusters/prod.yaml", "sibling file\n", "sibling")
	s.CommitDirect(t, "fleet", "main", "clusters/other/keep.yaml", "keep\n", "other cluster")
	return url
}

func prodPush(url string, files map[string]string) Push {
	p := Push{URL: url, Path: "clusters/prod", Message: "KubeOpera: cluster prod", Files: map[string][]byte{}}
	for k, v := range files {
		p.Files[k] = []byte(v)
	}
	return p
}

// receivePacks counts the pushes the server has seen.
func receivePacks(s *gitserver.Server) int {
	n := 0
	for _, r := range s.Requests() {
		if strings.HasPrefix(r, "POST ") && strings.Contains(r, "/git-receive-pack ") {
			n++
		}
	}
	return n
}

func TestPublishReplacesOnlyItsSubtreeAndIsIdempotent(t *testing.T) {
	ctx := testCtx(t)
	s := gitserver.Start(t, gitserver.Options{Username: user, Password: token})
	url := fleetRepo(t, s)
	before := s.CommitCount(t, "fleet", "main")

	// Names around "sub" exercise git's tree order ("sub.yaml" < "sub/"),
	// which the server's fsck checks.
	files := map[string]string{
		"clusters/prod/kustomization.yaml": "resources: [sub]\n",
		"clusters/prod/sub/app.yaml":       "kind: App\n",
		"clusters/prod/sub.yaml":           "kind: Sub\n",
		"clusters/prod/sub-a/x.yaml":       "x\n",
	}
	res, err := Publish(ctx, goodAuth, prodPush(url, files))
	if err != nil {
		t.Fatalf("first Publish: %v", err)
	}
	if !res.Changed || res.Commit != s.Head(t, "fleet", "main") {
		t.Fatalf("first Publish = %+v, want Changed and the branch tip %s", res, s.Head(t, "fleet", "main"))
	}
	if got := s.CommitCount(t, "fleet", "main"); got != before+1 {
		t.Errorf("commit count %d, want exactly one new commit on %d", got, before)
	}
	want := map[string]string{
		"README.md":                "# fleet\n",
		"clusters/prod.yaml":       "sibling file\n",
		"clusters/other/keep.yaml": "keep\n",
	}
	maps.Copy(want, files) // and clusters/prod/old.yaml is gone
	if got := s.Files(t, "fleet", "main"); !maps.Equal(got, want) {
		t.Fatalf("files after the first Publish:\n got %v\nwant %v", got, want)
	}

	// The same Files again: no commit, no push, the current tip.
	pushes, requests := receivePacks(s), len(s.Requests())
	res, err = Publish(ctx, goodAuth, prodPush(url, files))
	if err != nil {
		t.Fatalf("second Publish: %v", err)
	}
	if res.Changed || res.Commit != s.Head(t, "fleet", "main") {
		t.Errorf("second Publish = %+v, want unchanged at %s", res, s.Head(t, "fleet", "main"))
	}
	if got := s.CommitCount(t, "fleet", "main"); got != before+1 {
		t.Errorf("commit count after an unchanged Publish = %d, want %d", got, before+1)
	}
	if got := receivePacks(s); got != pushes {
		t.Errorf("an unchanged Publish pushed (%d receive-pack POSTs, had %d)", got, pushes)
	}
	// The steady state is one advertisement and one depth-1 fetch.
	if got := s.Requests()[requests:]; len(got) != 2 {
		t.Errorf("an unchanged Publish made %d requests, want 2: %q", len(got), got)
	}

	// Changed Files: one new commit; a file left out is deleted.
	delete(files, "clusters/prod/sub/app.yaml")
	files["clusters/prod/kustomization.yaml"] = "resources: []\n"
	res, err = Publish(ctx, goodAuth, prodPush(url, files))
	if err != nil || !res.Changed {
		t.Fatalf("third Publish = %+v, %v; want a change", res, err)
	}
	if got := s.CommitCount(t, "fleet", "main"); got != before+2 {
		t.Errorf("commit count after a change = %d, want %d", got, before+2)
	}
	delete(want, "clusters/prod/sub/app.yaml")
	want["clusters/prod/kustomization.yaml"] = "resources: []\n"
	if got := s.Files(t, "fleet", "main"); !maps.Equal(got, want) {
		t.Errorf("files after the change:\n got %v\nwant %v", got, want)
	}
}

func TestPublishErrorsSayWhatToFix(t *testing.T) {
	ctx := testCtx(t)
	s := gitserver.Start(t, gitserver.Options{Username: user, Password: token})
	url := s.CreateRepo(t, "fleet")
	files := map[string]string{"clusters/prod/a.yaml": "a\n"}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String() + "/fleet.git"
	closed.Close()

	wrong := Auth{Username: user, Password: "wrong-" + token}
	for _, tc := range []struct {
		name string
		auth Auth
		url  string
		kind error
		msg  string
	}{
		{"wrong password", wrong, url, ErrAuthentication,
			"git: authentication to " + url + " failed: check the username and password/token in the git credentials Secret"},
		{"no credentials", Auth{}, url, ErrAuthentication,
			"git: authentication to " + url + " failed: check the username and password/token in the git credentials Secret"},
		{"unknown repository", goodAuth, s.RepoURL("nope"), ErrNotFound,
			"git: repository " + s.RepoURL("nope") + " not found: check the URL, and that the credentials in the git credentials Secret can see the repository"},
		{"closed port", goodAuth, closedURL, ErrUnreachable,
			"git: cannot reach " + closedURL + ": dial: connection refused: check the URL and that the host is reachable from KubeOpera"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Publish(ctx, tc.auth, prodPush(tc.url, files))
			if !errors.Is(err, tc.kind) {
				t.Fatalf("err = %v, want kind %v", err, tc.kind)
			}
			if err.Error() != tc.msg {
				t.Errorf("message\n got %q\nwant %q", err.Error(), tc.msg)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("the error contains the token: %q", err)
			}
		})
	}
	if s.CommitCount(t, "fleet", "main") != 1 {
		t.Error("a failed Publish changed the repository")
	}
}

func TestPublishRejectedPushCarriesServerReason(t *testing.T) {
	ctx := testCtx(t)
	s := gitserver.Start(t, gitserver.Options{Username: user, Password: token})
	url := s.CreateRepo(t, "fleet")
	head := s.Head(t, "fleet", "main")
	s.RejectPushes("GH006: Protected branch update failed for refs/heads/main.")

	_, err := Publish(ctx, goodAuth, prodPush(url, map[string]string{"clusters/prod/a.yaml": "a\n"}))
	t.Logf("rejection: %v", err)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrRejected) {
		t.Fatalf("err = %v, want a rejected *Error", err)
	}
	wantPrefix := "git: push to " + url + " rejected: GH006: Protected branch update failed for refs/heads/main."
	if !strings.HasPrefix(err.Error(), wantPrefix) {
		t.Errorf("message\n got %q\nwant prefix %q", err.Error(), wantPrefix)
	}
	if !strings.Contains(e.Reason, "GH006") || strings.Contains(err.Error(), token) {
		t.Errorf("Reason = %q, message %q: want the hook's words and no token", e.Reason, err)
	}
	if got := receivePacks(s); got != 1 {
		t.Errorf("%d pushes for a rejection with an unmoved branch, want 1 (no retry)", got)
	}
	if s.Head(t, "fleet", "main") != head {
		t.Error("the branch moved despite the rejection")
	}
}

func TestPublishRetriesOnConcurrentCommit(t *testing.T) {
	ctx := testCtx(t)
	s := gitserver.Start(t, gitserver.Options{Username: user, Password: token})
	url := fleetRepo(t, s)
	before := s.CommitCount(t, "fleet", "main")

	var raced string
	var calls atomic.Int32
	s.OnReceivePack(func() {
		if calls.Add(1) == 1 { // the first push loses a race to another writer
			raced = s.CommitDirect(t, "fleet", "main", "apps/other-team.yaml", "theirs\n", "concurrent writer")
		}
	})
	files := map[string]string{"clusters/prod/a.yaml": "ours\n"}
	res, err := Publish(ctx, goodAuth, prodPush(url, files))
	if err != nil {
		t.Fatalf("Publish with a concurrent commit: %v", err)
	}
	if calls.Load() != 2 {
		t.Errorf("receive-pack called %d times, want 2 (one lost race, one retry)", calls.Load())
	}
	if !res.Changed || res.Commit != s.Head(t, "fleet", "main") {
		t.Errorf("Publish = %+v, want the new tip %s", res, s.Head(t, "fleet", "main"))
	}
	if got := s.CommitCount(t, "fleet", "main"); got != before+2 {
		t.Errorf("commit count %d, want %d (theirs and ours)", got, before+2)
	}
	got := s.Files(t, "fleet", "main")
	if got["apps/other-team.yaml"] != "theirs\n" || got["clusters/prod/a.yaml"] != "ours\n" {
		t.Errorf("files %v: want both the concurrent commit's and ours", got)
	}
	if _, ok := got["clusters/prod/old.yaml"]; ok {
		t.Error("clusters/prod/old.yaml survived the retry")
	}
	if raced == "" {
		t.Error("the concurrent commit was not made")
	}
}

func TestPublishGivesUpWhenTheBranchKeepsMoving(t *testing.T) {
	ctx := testCtx(t)
	s := gitserver.Start(t, gitserver.Options{})
	url := s.CreateRepo(t, "fleet")
	var calls atomic.Int32
	s.OnReceivePack(func() {
		n := calls.Add(1)
		s.CommitDirect(t, "fleet", "main", "busy.txt", string(rune('a'+n)), "busy writer")
	})
	_, err := Publish(ctx, Auth{}, prodPush(url, map[string]string{"clusters/prod/a.yaml": "a\n"}))
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "moved during each of 3 attempts") {
		t.Fatalf("err = %v, want ErrConflict after 3 attempts", err)
	}
	if calls.Load() != MaxAttempts {
		t.Errorf("%d push attempts, want %d", calls.Load(), MaxAttempts)
	}
	if _, ok := s.Files(t, "fleet", "main")["clusters/prod/a.yaml"]; ok {
		t.Error("our file landed although every push lost")
	}
}

func TestPublishToEmptyRepositoryCreatesBranch(t *testing.T) {
	ctx := testCtx(t)
	s := gitserver.Start(t, gitserver.Options{Username: user, Password: token})
	url := s.CreateEmptyRepo(t, "empty")
	files := map[string]string{"clusters/prod/a.yaml": "a\n", "clusters/prod/b/c.yaml": "c\n"}
	res, err := Publish(ctx, goodAuth, prodPush(url, files))
	if err != nil {
		t.Fatalf("Publish to an empty repository: %v", err)
	}
	if !res.Changed || res.Commit != s.Head(t, "empty", "main") || s.CommitCount(t, "empty", "main") != 1 {
		t.Errorf("Publish = %+v; server head %s, %d commits; want one root commit", res,
			s.Head(t, "empty", "main"), s.CommitCount(t, "empty", "main"))
	}
	if got := s.Files(t, "empty", "main"); !maps.Equal(got, files) {
		t.Errorf("files %v, want %v", got, files)
	}
}

func TestPublishToMissingBranchStartsFromDefaultBranch(t *testing.T) {
	ctx := testCtx(t)
	s := gitserver.Start(t, gitserver.Options{})
	url := s.CreateRepo(t, "fleet")
	p := prodPush(url, map[string]string{"clusters/prod/a.yaml": "a\n"})
	p.Branch = "clusters"
	res, err := Publish(ctx, Auth{}, p)
	if err != nil {
		t.Fatalf("Publish to a new branch: %v", err)
	}
	if !res.Changed || res.Commit != s.Head(t, "fleet", "clusters") || s.CommitCount(t, "fleet", "clusters") != 2 {
		t.Errorf("Publish = %+v, want a commit on top of main", res)
	}
	want := map[string]string{"README.md": "# fleet\n", "clusters/prod/a.yaml": "a\n"}
	if got := s.Files(t, "fleet", "clusters"); !maps.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if s.CommitCount(t, "fleet", "main") != 1 {
		t.Error("main moved")
	}
}

func TestPublishRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Push
		auth Auth
		want string
	}{
		{"file outside path", Push{URL: "https://h/r.git", Path: "clusters/prod", Files: map[string][]byte{"clusters/dev/a.yaml": nil}}, Auth{},
			`git: file "clusters/dev/a.yaml" is outside the push path "clusters/prod": files must be under it`},
		{"path prefix is not a parent", Push{URL: "https://h/r.git", Path: "clusters/prod", Files: map[string][]byte{"clusters/prod2/a.yaml": nil}}, Auth{},
			`git: file "clusters/prod2/a.yaml" is outside the push path "clusters/prod": files must be under it`},
		{"dot-dot", Push{URL: "https://h/r.git", Path: "c", Files: map[string][]byte{"c/../x": nil}}, Auth{},
			`git: file "c/../x": want a clean relative slash path like "clusters/prod"`},
		{".git component", Push{URL: "https://h/r.git", Path: "c", Files: map[string][]byte{"c/.git/config": nil}}, Auth{},
			`git: file "c/.git/config": component ".git" is not allowed`},
		{"file and directory", Push{URL: "https://h/r.git", Files: map[string][]byte{"a": nil, "a/b": nil}}, Auth{},
			`git: "a" is both a file and the directory of "a/b"`},
		{"token in URL", Push{URL: "https://" + token + "@h/r.git"}, Auth{},
			"git: the URL https://%2A%2A%2A@h/r.git contains credentials: remove them from the URL and put them in the git credentials Secret"},
		{"ssh key for https", Push{URL: "https://h/r.git"}, Auth{SSHPrivateKey: []byte("-----BEGIN OPENSSH PRIVATE KEY-----"), SSHKnownHosts: []byte("h ssh-ed25519 AAAA")},
			"git: the git credentials Secret holds an SSH key but the URL https://h/r.git is not ssh://: use the ssh:// URL or HTTPS credentials"},
		{"ssh URL without key", Push{URL: "ssh://git@h/r.git"}, goodAuth,
			`git: the URL ssh://git@h/r.git is SSH but the git credentials Secret has no "identity" key`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Publish(context.Background(), tc.auth, tc.p)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err\n got %v\nwant %s", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), token) {
				t.Errorf("error contains the token")
			}
		})
	}
}

func TestPublishWithEmptyPathOwnsTheWholeTree(t *testing.T) {
	ctx := testCtx(t)
	s := gitserver.Start(t, gitserver.Options{})
	url := fleetRepo(t, s)
	files := map[string]string{"only.yaml": "x\n", "d/e.yaml": "e\n"}
	p := prodPush(url, files)
	p.Path = ""
	if _, err := Publish(ctx, Auth{}, p); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if got := s.Files(t, "fleet", "main"); !maps.Equal(got, files) {
		t.Errorf("files %v, want exactly %v", got, files)
	}
	// No files at all: an empty tree is still a valid commit.
	p.Files = nil
	res, err := Publish(ctx, Auth{}, p)
	if err != nil || !res.Changed {
		t.Fatalf("Publish of nothing = %+v, %v", res, err)
	}
	if got := s.Files(t, "fleet", "main"); len(got) != 0 {
		t.Errorf("files %v, want none", got)
	}
}

// BenchmarkPublish measures one Publish against a loopback git-http-backend:
// "unchanged" is the steady state of a reconcile loop (list + depth-1 fetch,
// no push), "changed" adds a commit and a push.
func BenchmarkPublish(b *testing.B) {
	s := gitserver.Start(b, gitserver.Options{Username: user, Password: token})
	url := s.CreateRepo(b, "fleet")
	files := map[string][]byte{}
	for i := range 50 {
		files[fmt.Sprintf("clusters/prod/app%02d/deployment.yaml", i)] = bytes.Repeat([]byte("x: y\n"), 200)
	}
	p := Push{URL: url, Path: "clusters/prod", Files: files}
	ctx := context.Background()
	if _, err := Publish(ctx, goodAuth, p); err != nil {
		b.Fatal(err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if res, err := Publish(ctx, goodAuth, p); err != nil || res.Changed {
				b.Fatalf("Publish = %+v, %v", res, err)
			}
		}
	})
	b.Run("changed", func(b *testing.B) {
		n := 0
		for b.Loop() {
			n++
			files["clusters/prod/rev.txt"] = []byte(fmt.Sprint(n))
			if res, err := Publish(ctx, goodAuth, p); err != nil || !res.Changed {
				b.Fatalf("Publish = %+v, %v", res, err)
			}
		}
	})
}

package gitserver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// CreateRepo creates the bare repository name (slashes allowed, e.g.
// "org/fleet") with one initial commit on branch main, so clones work, and
// returns its clone URL http://127.0.0.1:PORT/<name>.git.
func (s *Server) CreateRepo(t testing.TB, name string) string {
	t.Helper()
	url := s.CreateEmptyRepo(t, name)
	s.CommitDirect(t, name, "main", "README.md", "# "+name+"\n", "initial commit")
	return url
}

// CreateEmptyRepo creates the bare repository name with no commits at all
// (HEAD points at the unborn branch main) and returns its clone URL.
func (s *Server) CreateEmptyRepo(t testing.TB, name string) string {
	t.Helper()
	url, err := s.InitRepo(name)
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// InitRepo is CreateEmptyRepo for callers that are not tests.
func (s *Server) InitRepo(name string) (string, error) {
	dir := s.repoDir(name)
	if _, err := os.Stat(dir); err == nil {
		return "", fmt.Errorf("gitserver: repository %q already exists", name)
	}
	for _, args := range [][]string{
		{"init", "--quiet", "--bare", "--initial-branch=main", dir},
		{"-C", dir, "config", "http.receivepack", "true"},
		// Check pushed objects like GitHub and GitLab do, so a client writing
		// a malformed tree or commit fails here rather than in production.
		{"-C", dir, "config", "receive.fsckObjects", "true"},
	} {
		if out, err := gitCmd("", nil, args...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("gitserver: git %s: %v: %s", args[0], err, out)
		}
	}
	hook := fmt.Sprintf("#!/bin/sh\nif [ -f %q ]; then cat %q >&2; exit 1; fi\nexit 0\n",
		s.rejectFile(), s.rejectFile())
	if err := os.WriteFile(filepath.Join(dir, "hooks", "pre-receive"), []byte(hook), 0o700); err != nil { //nolint:gosec // G306: a hook must be executable
		return "", fmt.Errorf("gitserver: write pre-receive hook: %w", err)
	}
	return s.RepoURL(name), nil
}

// Head returns the commit SHA at the tip of branch.
func (s *Server) Head(t testing.TB, name, branch string) string {
	t.Helper()
	return git(t, s.repoDir(name), nil, "rev-parse", "--verify", "refs/heads/"+branch+"^{commit}")
}

// CommitCount returns the number of commits reachable from branch.
func (s *Server) CommitCount(t testing.TB, name, branch string) int {
	t.Helper()
	out := git(t, s.repoDir(name), nil, "rev-list", "--count", "refs/heads/"+branch)
	n, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("gitserver: rev-list --count printed %q: %v", out, err)
	}
	return n
}

// Files returns every file at the tip of branch, path -> content.
func (s *Server) Files(t testing.TB, name, branch string) map[string]string {
	t.Helper()
	dir := s.repoDir(name)
	list := git(t, dir, nil, "ls-tree", "-r", "-z", "refs/heads/"+branch)
	var paths, ids []string
	for _, entry := range strings.Split(list, "\x00") {
		if entry == "" {
			continue
		}
		// "<mode> blob <id>\t<path>"
		meta, path, ok := strings.Cut(entry, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			t.Fatalf("gitserver: unexpected ls-tree entry %q", entry)
		}
		paths, ids = append(paths, path), append(ids, fields[2])
	}
	contents := catBlobs(t, dir, ids)
	files := make(map[string]string, len(paths))
	for i, p := range paths {
		files[p] = contents[i]
	}
	return files
}

// CommitDirect commits content at path onto branch straight into the bare
// repository, bypassing HTTP and hooks, and returns the new commit SHA. It
// stands in for a concurrent writer. The branch is created when missing.
// The ref moves with a compare-and-swap, so it fails rather than losing a
// commit that raced it. It may be called from an OnReceivePack callback;
// on failure it calls t.Fatalf, which there ends the request, not the test.
func (s *Server) CommitDirect(t testing.TB, name, branch, path, content, message string) string {
	t.Helper()
	dir := s.repoDir(name)
	ref := "refs/heads/" + branch
	tmp, err := os.MkdirTemp("", "gitserver-index-")
	if err != nil {
		t.Fatalf("gitserver: temp index: %v", err)
	}
	defer os.RemoveAll(tmp)
	index := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}

	parent := gitAllowFail(dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if parent != "" {
		git(t, dir, index, "read-tree", parent)
	}
	blob := gitInput(t, dir, nil, content, "hash-object", "-w", "--stdin")
	git(t, dir, index, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+path)
	tree := git(t, dir, index, "write-tree")
	args := []string{"commit-tree", tree, "-m", message}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	commit := git(t, dir, nil, args...)
	// An empty old value means "must not exist yet".
	git(t, dir, nil, "update-ref", ref, commit, parent)
	return commit
}

// ResetBranch points branch at commit, as a force push does: commits that
// only the old tip reached leave the branch's history.
func (s *Server) ResetBranch(t testing.TB, name, branch, commit string) {
	t.Helper()
	git(t, s.repoDir(name), nil, "update-ref", "refs/heads/"+branch, commit)
}

// RepoDir returns the directory of the bare repository name, for tests
// that serve it over another transport (e.g. an SSH server running
// git-receive-pack on it).
func (s *Server) RepoDir(name string) string { return s.repoDir(name) }

func (s *Server) repoDir(name string) string { return filepath.Join(s.root, name+".git") }

// catBlobs reads the blobs ids with one `git cat-file --batch`.
func catBlobs(t testing.TB, dir string, ids []string) []string {
	t.Helper()
	if len(ids) == 0 {
		return nil
	}
	cmd := gitCmd(dir, nil, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gitserver: git cat-file --batch: %v", err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	contents := make([]string, len(ids))
	for i := range ids {
		header, err := r.ReadString('\n')
		fields := strings.Fields(header) // "<id> blob <size>"
		if err != nil || len(fields) != 3 {
			t.Fatalf("gitserver: cat-file header %q: %v", header, err)
		}
		size, _ := strconv.Atoi(fields[2])
		body := make([]byte, size+1) // content and its trailing LF
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatalf("gitserver: cat-file body of %s: %v", fields[0], err)
		}
		contents[i] = string(body[:size])
	}
	return contents
}

func gitCmd(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), isolatedEnv()...),
		"GIT_AUTHOR_NAME=gitserver", "GIT_AUTHOR_EMAIL=gitserver@example.test",
		"GIT_COMMITTER_NAME=gitserver", "GIT_COMMITTER_EMAIL=gitserver@example.test")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// git runs a git command and returns its trimmed stdout, failing t on error.
func git(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	return gitInput(t, dir, env, "", args...)
}

func gitInput(t testing.TB, dir string, env []string, stdin string, args ...string) string {
	t.Helper()
	cmd := gitCmd(dir, env, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gitserver: git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out))
}

// gitAllowFail runs a git command and returns its trimmed stdout, or ""
// when it fails.
func gitAllowFail(dir string, args ...string) string {
	out, err := gitCmd(dir, nil, args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

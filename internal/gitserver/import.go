package gitserver

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ImportDir makes repository name hold the files under srcDir/sub, at the
// same path, in one commit on main tagged tag: a loopback copy of an
// upstream release (e.g. a module's config/crd) for clients that cannot
// reach upstream. srcDir is only read. It returns the repository's URL.
func (s *Server) ImportDir(name, srcDir, sub, tag string) (string, error) {
	url, err := s.InitRepo(name)
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "gitserver-import-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_DIR=" + s.repoDir(name), "GIT_WORK_TREE=" + srcDir, "GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	run := func(args ...string) (string, error) {
		cmd := gitCmd(srcDir, env, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("gitserver: import %s: git %s: %v: %s", name, args[0], err, strings.TrimSpace(stderr.String()))
		}
		return strings.TrimSpace(string(out)), nil
	}
	// --force: a module's files are taken as they are, .gitignore or not.
	if _, err := run("add", "--force", "--", sub); err != nil {
		return "", err
	}
	tree, err := run("write-tree")
	if err != nil {
		return "", err
	}
	commit, err := run("commit-tree", tree, "-m", fmt.Sprintf("%s at %s", sub, tag))
	if err != nil {
		return "", err
	}
	for _, ref := range []string{"refs/heads/main", "refs/tags/" + tag} {
		if _, err := run("update-ref", ref, commit); err != nil {
			return "", err
		}
	}
	return url, nil
}

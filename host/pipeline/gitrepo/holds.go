package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Pushed is a commit Publish made, and what it put under its path, as
// Holds needs them to judge a later revision.
type Pushed struct {
	URL    string // the repository Publish pushed to
	Branch string // default "main"
	Path   string // the subtree Publish owned ("" for the whole tree)
	Commit string // Result.Commit: the full SHA of the pushed commit
	// Files is what Publish put under Path (Push.Files). When the commit
	// has left the branch's history (a force push), the revision still
	// holds it if its Path has exactly these files; nil skips that check.
	Files map[string][]byte
}

// How says how Holds decided.
type How string

const (
	// Same: the revision is the pushed commit.
	Same How = "same commit"
	// Ancestry: the pushed commit is in the revision's history, or is not
	// (Holds false) although both are on the branch.
	Ancestry How = "ancestry"
	// Content: the pushed commit is no longer in the branch's history, so
	// the revision's tree under Path was compared with Files.
	Content How = "content"
	// Unknown: the revision is not on the branch (it was rewritten since
	// Flux fetched it), so nothing can be said of it.
	Unknown How = "unknown"
)

// Verdict is whether a revision holds a pushed commit, and why.
type Verdict struct {
	Holds bool
	How   How
	// Why says it for a status message, e.g. "1f94951a0c3d descends from
	// 909d2f7706fa" or "1f94951a0c3d predates 909d2f7706fa".
	Why string
}

// Holds reports whether revision (a full SHA on p.Branch, e.g. the commit
// Flux applied) holds the commit p pushed: it is that commit or descends
// from it (several writers pushing to one branch each add a commit on top
// of the others', and Flux fetches only the newest), or, when the pushed
// commit has left the branch's history, it has the same files under
// p.Path. It fetches the branch's history from p.URL unless revision is
// p.Commit. Errors say what to fix and carry no credential.
func Holds(ctx context.Context, auth Auth, p Pushed, revision string) (Verdict, error) {
	v, err := holds(ctx, auth, p, revision)
	return v, scrub(err, auth.secrets())
}

func holds(ctx context.Context, auth Auth, p Pushed, revision string) (Verdict, error) {
	for _, h := range []string{p.Commit, revision} {
		if len(h) != 40 || !plumbing.IsHash(h) {
			return Verdict{}, fmt.Errorf("git: %q is not a full commit SHA", h)
		}
	}
	pushed, rev := plumbing.NewHash(p.Commit), plumbing.NewHash(revision)
	if pushed == rev {
		return Verdict{Holds: true, How: Same, Why: short(rev) + " is the pushed commit"}, nil
	}
	if p.Branch == "" {
		p.Branch = "main"
	}
	p.Path = strings.Trim(p.Path, "/")
	repo, err := history(ctx, auth, p.URL, p.Branch)
	if err != nil {
		return Verdict{}, err
	}
	revCommit, err := repo.CommitObject(rev)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return Verdict{How: Unknown, Why: fmt.Sprintf("%s is no longer on branch %s (its history was rewritten)", short(rev), p.Branch)}, nil
	}
	if err != nil {
		return Verdict{}, fmt.Errorf("git: read commit %s: %w", rev, err)
	}
	pushedCommit, err := repo.CommitObject(pushed)
	switch {
	case errors.Is(err, plumbing.ErrObjectNotFound):
		return sameContent(repo, revCommit, p)
	case err != nil:
		return Verdict{}, fmt.Errorf("git: read commit %s: %w", pushed, err)
	}
	return ancestry(pushedCommit, revCommit)
}

// ancestry decides by history, both commits being on the branch.
func ancestry(pushed, rev *object.Commit) (Verdict, error) {
	in, err := pushed.IsAncestor(rev)
	if err != nil {
		return Verdict{}, fmt.Errorf("git: walk the history of %s: %w", rev.Hash, err)
	}
	if in {
		return Verdict{Holds: true, How: Ancestry, Why: short(rev.Hash) + " descends from " + short(pushed.Hash)}, nil
	}
	older, err := rev.IsAncestor(pushed)
	if err != nil {
		return Verdict{}, fmt.Errorf("git: walk the history of %s: %w", pushed.Hash, err)
	}
	if older {
		return Verdict{How: Ancestry, Why: short(rev.Hash) + " predates " + short(pushed.Hash)}, nil
	}
	return Verdict{How: Ancestry, Why: short(rev.Hash) + " is on another line of history than " + short(pushed.Hash)}, nil
}

// sameContent compares the revision's tree under p.Path with p.Files, the
// pushed commit being gone from the branch.
func sameContent(repo *gogit.Repository, rev *object.Commit, p Pushed) (Verdict, error) {
	gone := fmt.Sprintf("%s is no longer on branch %s (its history was rewritten)", short(plumbing.NewHash(p.Commit)), p.Branch)
	if p.Files == nil {
		return Verdict{How: Content, Why: gone + " and the pushed files are not known to compare"}, nil
	}
	if err := checkFiles(p.Path, p.Files); err != nil {
		return Verdict{}, err
	}
	want, err := writeFiles(memory.NewStorage(), p.Path, p.Files)
	if err != nil {
		return Verdict{}, fmt.Errorf("git: hash the pushed files: %w", err)
	}
	got, err := subtree(rev, p.Path)
	if err != nil {
		return Verdict{}, err
	}
	where := p.Path
	if where == "" {
		where = "the repository root"
	}
	if got != want {
		return Verdict{How: Content, Why: fmt.Sprintf("%s, and %s at %s differs from what was pushed", gone, where, short(rev.Hash))}, nil
	}
	return Verdict{Holds: true, How: Content, Why: fmt.Sprintf("%s, but %s at %s has the pushed files", gone, where, short(rev.Hash))}, nil
}

// subtree returns the hash of the tree at dir in c (zero when absent).
func subtree(c *object.Commit, dir string) (plumbing.Hash, error) {
	root, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("git: read the tree of %s: %w", c.Hash, err)
	}
	if dir == "" {
		return root.Hash, nil
	}
	t, err := root.Tree(dir)
	if errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("git: read %s at %s: %w", dir, c.Hash, err)
	}
	return t.Hash, nil
}

// history fetches the whole history of branch from url into memory.
func history(ctx context.Context, auth Auth, url, branch string) (*gogit.Repository, error) {
	method, err := auth.method(url)
	if err != nil {
		return nil, err
	}
	s := &session{push: Push{URL: url, Branch: branch}, auth: method, ca: auth.CABundle, ssh: len(auth.SSHPrivateKey) > 0}
	ref := plumbing.NewBranchReferenceName(branch)
	repo, err := gogit.InitWithOptions(memory.NewStorage(), nil, gogit.InitOptions{DefaultBranch: ref})
	if err != nil {
		return nil, fmt.Errorf("git: init in-memory repository: %w", err)
	}
	remote, err := repo.CreateRemote(&config.RemoteConfig{Name: gogit.DefaultRemoteName, URLs: []string{url}})
	if err != nil {
		return nil, fmt.Errorf("git: add remote: %w", err)
	}
	err = s.fetchInto(ctx, remote, ref, ref, 0)
	if errors.Is(err, gogit.NoMatchingRefSpecError{}) || errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil, newError(ErrNotFound, url, "", "git: %s has no branch %q, which held the pushed tree: restore the branch, or change the cluster's spec to push again", branch)
	}
	return repo, err
}

func short(h plumbing.Hash) string { return h.String()[:12] }

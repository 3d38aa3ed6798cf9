// Package gitrepo publishes a generated tree of manifests to the customer's
// git repository (the GitOps source Flux reconciles from), with go-git,
// entirely in memory.
package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
)

// MaxAttempts bounds the fetch-apply-push cycles when someone else moves
// the branch between our fetch and our push.
const MaxAttempts = 3

// Push describes one publication.
type Push struct {
	URL    string // https://, http:// or ssh:// clone URL
	Branch string // default "main"; created when missing
	// Path is the subtree this push owns: everything under it is replaced
	// by Files; nothing outside it is touched. "" owns the whole tree.
	Path string
	// Files maps slash paths relative to the repository root, each under
	// Path, to their content.
	Files   map[string][]byte
	Message string // commit message (names the cluster); default "KubeOpera: update <Path>"
	Author  string // default "KubeOpera"
	Email   string // default "kubeopera@localhost"
}

// Result is the outcome of a publication.
type Result struct {
	Commit  string // the branch tip holding the tree: the new commit, or the existing tip when nothing changed
	Changed bool   // whether a commit was pushed
}

// Publish makes the subtree p.Path of p.Branch equal p.Files: it fetches the
// branch tip (depth 1), rewrites the trees leading to Path, and, when the
// tree differs, pushes one commit on top. The same Files again push nothing.
// When the branch moves between fetch and push (a concurrent writer), it
// starts over on the new tip, up to MaxAttempts times, keeping the other
// writer's commits. Failures are *Error values (see the Err* kinds) whose
// message says what to fix; no error carries a credential.
func Publish(ctx context.Context, auth Auth, p Push) (Result, error) {
	res, err := publish(ctx, auth, p)
	return res, scrub(err, auth.secrets())
}

func publish(ctx context.Context, auth Auth, p Push) (Result, error) {
	p = p.withDefaults()
	if err := checkFiles(p.Path, p.Files); err != nil {
		return Result{}, err
	}
	method, err := auth.method(p.URL)
	if err != nil {
		return Result{}, err
	}
	s := &session{push: p, auth: method, ca: auth.CABundle, ssh: len(auth.SSHPrivateKey) > 0}
	for attempt := 1; attempt <= MaxAttempts; attempt++ {
		res, err := s.attempt(ctx)
		if !errors.Is(err, errMoved) {
			return res, err
		}
	}
	return Result{}, newError(ErrConflict, p.URL, "",
		"git: push to %s failed: branch %q moved during each of %d attempts (another writer is busy): retry later", p.Branch, MaxAttempts)
}

func (p Push) withDefaults() Push {
	if p.Branch == "" {
		p.Branch = "main"
	}
	p.Path = strings.Trim(p.Path, "/")
	if p.Author == "" {
		p.Author = "KubeOpera"
	}
	if p.Email == "" {
		p.Email = "kubeopera@localhost"
	}
	if p.Message == "" {
		p.Message = "KubeOpera: update " + p.Path
		if p.Path == "" {
			p.Message = "KubeOpera: update the repository"
		}
	}
	return p
}

// errMoved says the branch tip moved between fetch and push.
var errMoved = errors.New("branch moved")

// session is one Publish call: the push and how to authenticate.
type session struct {
	push Push
	auth transport.AuthMethod
	ca   []byte
	ssh  bool
}

// attempt runs one fetch-apply-push cycle in a fresh in-memory repository.
func (s *session) attempt(ctx context.Context) (Result, error) {
	repo, base, exists, err := s.fetch(ctx)
	if err != nil {
		return Result{}, err
	}
	var baseTree plumbing.Hash
	if !base.IsZero() {
		c, err := repo.CommitObject(base)
		if err != nil {
			return Result{}, fmt.Errorf("git: read fetched commit %s: %w", base, err)
		}
		baseTree = c.TreeHash
	}
	tree, err := spliceTree(repo.Storer, baseTree, s.push.Path, s.push.Files)
	if err != nil {
		return Result{}, fmt.Errorf("git: build tree: %w", err)
	}
	if tree.IsZero() {
		if tree, err = writeEmptyTree(repo); err != nil {
			return Result{}, err
		}
	}
	if exists && tree == baseTree {
		return Result{Commit: base.String()}, nil
	}
	commit, err := s.commit(repo, base, tree)
	if err != nil {
		return Result{}, err
	}
	if err := s.send(ctx, repo, base, commit); err != nil {
		return Result{}, err
	}
	return Result{Commit: commit.String(), Changed: true}, nil
}

// fetch returns an in-memory repository holding the tip of the branch (or,
// when the branch is missing, of the remote's default branch) as
// refs/heads/<branch>, and that tip: zero for an empty repository. exists
// says whether the branch is already on the remote. The common case (the
// branch exists) costs one advertisement and one depth-1 fetch.
func (s *session) fetch(ctx context.Context) (*gogit.Repository, plumbing.Hash, bool, error) {
	branch := plumbing.NewBranchReferenceName(s.push.Branch)
	repo, err := gogit.InitWithOptions(memory.NewStorage(), nil, gogit.InitOptions{DefaultBranch: branch})
	if err != nil {
		return nil, plumbing.ZeroHash, false, fmt.Errorf("git: init in-memory repository: %w", err)
	}
	remote, err := repo.CreateRemote(&config.RemoteConfig{Name: gogit.DefaultRemoteName, URLs: []string{s.push.URL}})
	if err != nil {
		return nil, plumbing.ZeroHash, false, fmt.Errorf("git: add remote: %w", err)
	}
	exists := true
	err = s.fetchInto(ctx, remote, branch, branch, 1)
	if errors.Is(err, gogit.NoMatchingRefSpecError{}) {
		exists = false
		err = s.fetchDefault(ctx, remote, branch)
	}
	if errors.Is(err, transport.ErrEmptyRemoteRepository) || errors.Is(err, errNoBranches) {
		return repo, plumbing.ZeroHash, false, nil
	}
	if err != nil {
		return nil, plumbing.ZeroHash, false, err
	}
	ref, err := repo.Reference(branch, false)
	if err != nil {
		return nil, plumbing.ZeroHash, false, fmt.Errorf("git: fetched but have no %s: %w", branch, err)
	}
	return repo, ref.Hash(), exists, nil
}

// errNoBranches: the remote has refs but no branch to start from.
var errNoBranches = errors.New("no branches")

// fetchDefault fetches the branch the remote HEAD points at as branch, so a
// new branch starts from the default branch.
func (s *session) fetchDefault(ctx context.Context, remote *gogit.Remote, branch plumbing.ReferenceName) error {
	refs, err := remote.ListContext(ctx, &gogit.ListOptions{Auth: s.auth, CABundle: s.ca})
	if err != nil {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return err
		}
		return s.transportError("list branches of", err)
	}
	src := defaultBranch(refs)
	if src == "" {
		return errNoBranches
	}
	return s.fetchInto(ctx, remote, src, branch, 1)
}

// fetchInto fetches src as the local ref dst: the last depth commits of its
// history (0: all of it).
func (s *session) fetchInto(ctx context.Context, remote *gogit.Remote, src, dst plumbing.ReferenceName, depth int) error {
	err := remote.FetchContext(ctx, &gogit.FetchOptions{
		RefSpecs: []config.RefSpec{config.RefSpec("+" + src.String() + ":" + dst.String())},
		Depth:    depth,
		Auth:     s.auth,
		CABundle: s.ca,
		Tags:     gogit.NoTags,
	})
	switch {
	case err == nil, errors.Is(err, gogit.NoErrAlreadyUpToDate):
		return nil
	case errors.Is(err, gogit.NoMatchingRefSpecError{}), errors.Is(err, transport.ErrEmptyRemoteRepository):
		return err
	}
	return s.transportError("fetch from", err)
}

// defaultBranch returns the branch the remote HEAD points at, or "".
func defaultBranch(refs []*plumbing.Reference) plumbing.ReferenceName {
	var head *plumbing.Reference
	for _, r := range refs {
		if r.Name() == plumbing.HEAD {
			head = r
		}
	}
	if head == nil {
		return ""
	}
	if head.Type() == plumbing.SymbolicReference {
		return head.Target()
	}
	for _, r := range refs { // no symref capability: match by hash
		if r.Name().IsBranch() && r.Hash() == head.Hash() {
			return r.Name()
		}
	}
	return ""
}

func (s *session) commit(repo *gogit.Repository, parent, tree plumbing.Hash) (plumbing.Hash, error) {
	sig := object.Signature{Name: s.push.Author, Email: s.push.Email, When: time.Now()}
	c := &object.Commit{Author: sig, Committer: sig, Message: s.push.Message, TreeHash: tree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	obj := repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("git: encode commit: %w", err)
	}
	h, err := repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("git: store commit: %w", err)
	}
	ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(s.push.Branch), h)
	if err := repo.Storer.SetReference(ref); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("git: set branch: %w", err)
	}
	return h, nil
}

// send pushes the branch. When the server refuses the ref update it looks
// at the remote tip: moved means a concurrent writer (errMoved, retry),
// unmoved means a real rejection, reported with the server's words.
func (s *session) send(ctx context.Context, repo *gogit.Repository, base, commit plumbing.Hash) error {
	branch := plumbing.NewBranchReferenceName(s.push.Branch)
	var progress bytes.Buffer // the server's sideband messages (hook output)
	err := repo.PushContext(ctx, &gogit.PushOptions{
		RemoteName: gogit.DefaultRemoteName,
		RefSpecs:   []config.RefSpec{config.RefSpec(branch.String() + ":" + branch.String())},
		Auth:       s.auth,
		CABundle:   s.ca,
		Progress:   &progress,
	})
	if err == nil {
		return nil
	}
	if e := classify(err, s.push.URL, s.ssh); e != nil {
		return e
	}
	tip, lerr := s.remoteTip(ctx, repo)
	if lerr != nil {
		return lerr
	}
	if tip != base {
		return errMoved
	}
	if isRefUpdateRefusal(err) {
		return rejectedError(s.push.URL, rejectionReason(progress.String(), err))
	}
	return fmt.Errorf("git: push to %s: %w", redactURL(s.push.URL), err)
}

// remoteTip returns the branch's current hash on the remote (zero if none).
func (s *session) remoteTip(ctx context.Context, repo *gogit.Repository) (plumbing.Hash, error) {
	remote, err := repo.Remote(gogit.DefaultRemoteName)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("git: remote: %w", err)
	}
	refs, err := remote.ListContext(ctx, &gogit.ListOptions{Auth: s.auth, CABundle: s.ca})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, s.transportError("list branches of", err)
	}
	for _, r := range refs {
		if r.Name() == plumbing.NewBranchReferenceName(s.push.Branch) {
			return r.Hash(), nil
		}
	}
	return plumbing.ZeroHash, nil
}

// isRefUpdateRefusal matches the server refusing the ref update (report
// status "ng"), as opposed to a transport failure.
func isRefUpdateRefusal(err error) bool {
	return strings.Contains(err.Error(), "command error on ") || errors.Is(err, gogit.ErrNonFastForwardUpdate)
}

// rejectionReason prefers what the server's hooks printed (relayed on the
// sideband) over the bare report status ("pre-receive hook declined").
func rejectionReason(sideband string, err error) string {
	var lines []string
	for _, l := range strings.FieldsFunc(sideband, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "remote:")); l != "" {
			lines = append(lines, l)
		}
	}
	status := err.Error()
	if _, after, ok := strings.Cut(status, "command error on "); ok {
		status = after // "refs/heads/main: pre-receive hook declined"
	}
	if len(lines) == 0 {
		return status
	}
	return strings.Join(lines, "; ") + " (" + status + ")"
}

// transportError classifies err or wraps it with what was being done.
func (s *session) transportError(doing string, err error) error {
	if e := classify(err, s.push.URL, s.ssh); e != nil {
		return e
	}
	return fmt.Errorf("git: %s %s: %w", doing, redactURL(s.push.URL), err)
}

func writeEmptyTree(repo *gogit.Repository) (plumbing.Hash, error) {
	obj := repo.Storer.NewEncodedObject()
	if err := (&object.Tree{}).Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("git: encode empty tree: %w", err)
	}
	return repo.Storer.SetEncodedObject(obj)
}

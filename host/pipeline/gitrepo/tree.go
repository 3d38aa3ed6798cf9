package gitrepo

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// The tree is edited as git objects, not through a worktree: only the
// trees on the way to Path are rewritten, so everything outside Path keeps
// its exact entries (modes, symlinks, submodules) and a shallow clone needs
// no checkout.

// spliceTree returns the hash of base (zero: the empty tree) with the entry
// at dir (slash path, "" for the root) replaced by a tree of files (paths
// relative to the repo root, all under dir). An empty files map removes
// dir. It returns the zero hash when the whole result is empty.
func spliceTree(s storer.EncodedObjectStorer, base plumbing.Hash, dir string, files map[string][]byte) (plumbing.Hash, error) {
	sub, err := writeFiles(s, dir, files)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var parts []string
	if dir != "" {
		parts = strings.Split(dir, "/")
	}
	return splice(s, base, parts, sub)
}

// splice replaces the entry at parts under the tree base with the tree sub.
func splice(s storer.EncodedObjectStorer, base plumbing.Hash, parts []string, sub plumbing.Hash) (plumbing.Hash, error) {
	if len(parts) == 0 {
		return sub, nil
	}
	var entries []object.TreeEntry
	var child plumbing.Hash
	if !base.IsZero() {
		t, err := object.GetTree(s, base)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		for _, e := range t.Entries {
			if e.Name != parts[0] {
				entries = append(entries, e)
			} else if e.Mode == filemode.Dir {
				child = e.Hash // a file in the way is replaced
			}
		}
	}
	h, err := splice(s, child, parts[1:], sub)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if !h.IsZero() {
		entries = append(entries, object.TreeEntry{Name: parts[0], Mode: filemode.Dir, Hash: h})
	}
	return writeTree(s, entries)
}

// writeFiles stores files as blobs and the trees holding them, and returns
// the tree for dir (zero when files is empty).
func writeFiles(s storer.EncodedObjectStorer, dir string, files map[string][]byte) (plumbing.Hash, error) {
	// children[d] lists the entries directly in directory d (relative to dir).
	children := map[string][]object.TreeEntry{}
	subdirs := map[string]map[string]bool{}
	for p, content := range files {
		rel := strings.TrimPrefix(p, dir+"/")
		if dir == "" {
			rel = p
		}
		h, err := writeBlob(s, content)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		parent, name := path.Split(rel)
		parent = strings.TrimSuffix(parent, "/")
		children[parent] = append(children[parent], object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
		for d := parent; d != ""; {
			up, base := path.Split(d)
			up = strings.TrimSuffix(up, "/")
			if subdirs[up] == nil {
				subdirs[up] = map[string]bool{}
			}
			subdirs[up][base] = true
			d = up
		}
	}
	if len(files) == 0 {
		return plumbing.ZeroHash, nil
	}
	var build func(d string) (plumbing.Hash, error)
	build = func(d string) (plumbing.Hash, error) {
		entries := children[d]
		for name := range subdirs[d] {
			h, err := build(path.Join(d, name))
			if err != nil {
				return plumbing.ZeroHash, err
			}
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
		return writeTree(s, entries)
	}
	return build("")
}

func writeBlob(s storer.EncodedObjectStorer, content []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(content); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// writeTree stores a tree of entries in git's canonical order, or returns
// the zero hash for no entries.
func writeTree(s storer.EncodedObjectStorer, entries []object.TreeEntry) (plumbing.Hash, error) {
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	// git sorts a tree's entries by name, comparing a directory as if its
	// name ended in "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	obj := s.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	return s.SetEncodedObject(obj)
}

// checkFiles validates the push path and file paths: clean relative slash
// paths, every file under dir, no ".git" component.
func checkFiles(dir string, files map[string][]byte) error {
	if dir != "" {
		if err := checkPath(dir); err != nil {
			return fmt.Errorf("git: push path %q: %w", dir, err)
		}
	}
	for p := range files {
		if err := checkPath(p); err != nil {
			return fmt.Errorf("git: file %q: %w", p, err)
		}
		if dir != "" && !strings.HasPrefix(p, dir+"/") {
			return fmt.Errorf("git: file %q is outside the push path %q: files must be under it", p, dir)
		}
	}
	for p := range files {
		// A file that is also a directory of another file cannot be stored.
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := files[d]; ok {
				return fmt.Errorf("git: %q is both a file and the directory of %q", d, p)
			}
		}
	}
	return nil
}

func checkPath(p string) error {
	if p == "" || path.Clean(p) != p || path.IsAbs(p) || strings.Contains(p, "\\") {
		return fmt.Errorf("want a clean relative slash path like \"clusters/prod\"")
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "." || strings.EqualFold(part, ".git") {
			return fmt.Errorf("component %q is not allowed", part)
		}
	}
	return nil
}

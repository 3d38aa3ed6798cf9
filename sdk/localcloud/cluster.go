package localcloud

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Status is where a cluster is.
type Status struct {
	Phase    Phase
	Message  string
	Progress int
}

// Create makes the directory of cluster spec.ID under root and starts
// starter (a command that runs Boot on the directory it gets as its last
// argument; Starter when none is given) as a detached process. A Spec
// without BinDir gets BinDir's. It returns at once; Inspect follows the
// start. Creating a cluster that exists does nothing, so a retried request
// never starts a second one, unless the cluster Failed: that one is
// removed and started again (a retry after a failure).
func Create(root string, spec Spec, starter ...string) error {
	c, err := open(root, spec.ID)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.dir), 0o750); err != nil {
		return fmt.Errorf("local clusters directory: %w", err)
	}
	if _, err := os.Stat(c.dir); err == nil {
		if st, err := Inspect(root, spec.ID); errors.Is(err, ErrNotFound) {
			// A directory without its spec is no cluster: an older
			// plugin's crash between the two. Nothing in it ran.
			if err := removeDir(c.dir); err != nil {
				return err
			}
		} else if err != nil || st.Phase != Failed {
			return err // starting or started: the same request again
		} else if err := Remove(root, spec.ID); err != nil {
			// A retry of a cluster that failed starts it from scratch:
			// a cluster that never became Ready has nothing worth keeping.
			return err
		}
		return Create(root, spec, starter...)
	}
	if len(starter) == 0 {
		if starter, err = Starter(); err != nil {
			return err
		}
	}
	if spec.BinDir == "" {
		if spec.BinDir, err = BinDir(); err != nil {
			return err
		}
	}
	if err := c.stage(spec); errors.Is(err, fs.ErrExist) {
		return nil // a concurrent request made it: the same request again
	} else if err != nil {
		return err
	}
	_, err = c.spawn("starter", starter[0], append(starter[1:], c.dir)...)
	return err
}

// removeStaged removes what a plugin killed inside stage left beside the
// cluster's directory: nothing ever ran from it.
func (c cluster) removeStaged() {
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(c.dir), "."+filepath.Base(c.dir)+".staging-*"))
	for _, d := range left {
		_ = os.RemoveAll(d)
	}
}

// stage makes the cluster's directory with its spec and state in one
// step: written into a directory beside it (a name CheckID refuses, so no
// listing takes it for a cluster), then renamed into place. A crash leaves
// either no cluster or one with its spec, never a directory that no retry
// can use. Made but never started (a crash before the starter), the
// cluster reads Failed and a retry starts it again.
func (c cluster) stage(spec Spec) error {
	tmp, err := os.MkdirTemp(filepath.Dir(c.dir), "."+filepath.Base(c.dir)+".staging-")
	if err != nil {
		return fmt.Errorf("local cluster directory: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; else what was staged
	staged := cluster{dir: tmp}
	if err := staged.setState(state{Phase: Starting, Message: "starting"}); err != nil {
		return err
	}
	if err := writeJSON(staged.path("spec.json"), spec); err != nil {
		return err
	}
	if err := os.Rename(tmp, c.dir); err != nil {
		if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
			return fs.ErrExist
		}
		return fmt.Errorf("local cluster directory: %w", err)
	}
	return nil
}

// Inspect reports cluster id: ErrNotFound when it has no directory; Failed
// when its start failed or one of its processes is gone (with the end of
// that process's log).
func Inspect(root, id string) (Status, error) {
	c, err := open(root, id)
	if err != nil {
		return Status{}, err
	}
	if !c.exists() {
		return Status{}, fmt.Errorf("%w %q in %s", ErrNotFound, id, filepath.Dir(c.dir))
	}
	// Processes first, then the state: the starter records Ready (or
	// Failed) before it exits, so a starter gone before a state that
	// still says Starting really stopped early. The other order calls a
	// start that just finished lost.
	running := c.running()
	st, err := c.readState()
	if err != nil {
		return Status{}, err
	}
	switch st.Phase {
	case Starting:
		if _, ok := running["starter"]; !ok {
			return Status{Phase: Failed, Message: "the start stopped before the cluster was ready: " + c.logTail("starter", 5)}, nil
		}
	case Ready:
		for _, name := range processes[1:] {
			if _, ok := running[name]; !ok {
				return Status{Phase: Failed, Message: fmt.Sprintf("%s is not running: %s", name, c.logTail(name, 5))}, nil
			}
		}
	}
	return Status(st), nil
}

// Kubeconfig returns the admin kubeconfig of a Ready cluster.
func Kubeconfig(root, id string) ([]byte, error) {
	st, err := Inspect(root, id)
	if err != nil {
		return nil, err
	}
	if st.Phase != Ready {
		return nil, fmt.Errorf("local cluster %s is %s (%s), not Ready", id, st.Phase, st.Message)
	}
	c, _ := open(root, id)
	return os.ReadFile(c.kubeconfigPath())
}

// Stop ends every process of cluster id and keeps its directory (the logs,
// etcd's data) to look at: Inspect then reports it Failed, a Create starts
// it again from scratch and Remove deletes it. An unknown cluster is
// ErrNotFound.
func Stop(root, id string) error {
	c, err := open(root, id)
	if err != nil {
		return err
	}
	if !c.exists() {
		return fmt.Errorf("%w %q in %s", ErrNotFound, id, filepath.Dir(c.dir))
	}
	if err := c.stop(); err != nil {
		return fmt.Errorf("stop local cluster %s: %w", id, err)
	}
	return c.setState(state{Phase: Failed, Message: "stopped; Remove deletes it, Create starts it again"})
}

// Remove stops every process of cluster id and deletes its directory. A
// cluster that does not exist is already removed.
func Remove(root, id string) error {
	c, err := open(root, id)
	if err != nil {
		return err
	}
	c.removeStaged()
	if _, err := os.Stat(c.dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := c.stop(); err != nil {
		return fmt.Errorf("stop local cluster %s: %w", id, err)
	}
	return removeDir(c.dir)
}

// removeDir deletes dir, trying again briefly when it is not yet empty (a
// process that just exited may have written its last file); the error
// names what is left.
func removeDir(dir string) error {
	var err error
	for try := 0; try < 5; try++ {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	var left []string
	_ = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, _ error) error {
		if len(left) < 10 && p != dir {
			left = append(left, p)
		}
		return nil
	})
	return fmt.Errorf("remove local cluster directory %s: %w (left: %v; running: %v)", dir, err, left, ProcessesUnder(dir))
}

// RemoveAll removes every cluster under root, then root itself.
func RemoveAll(root string) error {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if e.IsDir() && CheckID(e.Name()) == nil {
			errs = append(errs, Remove(root, e.Name()))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return os.RemoveAll(root)
}

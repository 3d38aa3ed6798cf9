package terraform

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// workspace is the directory of one cluster's local runs:
//
//	<Dir>/<ID>/module/          terraform's working directory (module files, .terraform)
//	<Dir>/<ID>/<action>.log     terraform's stdout and stderr, every attempt, each after a marker line
//	<Dir>/<ID>/<action>.attempt when the last attempt started and which process ran it
//	<Dir>/<ID>/<action>.result  how the last attempt ended; absent while it runs
//	<Dir>/<ID>/update-<n>/      the same records of apply generation n (Run.Generation)
//
// Every generation runs in the one module directory, so a module without
// a backend keeps one local state there for all of them.
type workspace struct {
	dir  string // absolute: where the records and logs are
	root string // absolute: <Dir>/<ID>, the cluster's
}

func (w workspace) moduleDir() string           { return filepath.Join(w.root, "module") }
func (w workspace) logPath(a Action) string     { return filepath.Join(w.dir, string(a)+".log") }
func (w workspace) attemptPath(a Action) string { return filepath.Join(w.dir, string(a)+".attempt") }
func (w workspace) resultPath(a Action) string  { return filepath.Join(w.dir, string(a)+".result") }

// attempt records the start of one attempt.
type attempt struct {
	Number  int       `json:"number"`
	Started time.Time `json:"started"`
	PID     int       `json:"pid"`
}

// result records how an attempt ended.
type result struct {
	State      sdk.State      `json:"state"`
	Message    string         `json:"message"`
	ErrorClass sdk.ErrorClass `json:"errorClass,omitempty"`
	Finished   time.Time      `json:"finished"`
}

// record is what the files say about the last attempt of an action.
type record struct {
	attempt *attempt // nil: never started in this workspace
	result  *result  // nil: running, or interrupted when no process runs it
}

func (w workspace) record(a Action) (record, error) {
	var rec record
	var at attempt
	if ok, err := readJSON(w.attemptPath(a), &at); err != nil || !ok {
		return rec, err
	}
	rec.attempt = &at
	var res result
	ok, err := readJSON(w.resultPath(a), &res)
	if ok {
		rec.result = &res
	}
	return rec, err
}

// begin records a new attempt after prev and opens the log for appending,
// starting with a marker line. It clears the previous result.
func (w workspace) begin(a Action, prev record) (*os.File, attempt, error) {
	at := attempt{Number: 1, Started: time.Now().UTC(), PID: os.Getpid()}
	if prev.attempt != nil {
		at.Number = prev.attempt.Number + 1
	}
	if err := os.Remove(w.resultPath(a)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, at, fmt.Errorf("clear the last result of terraform %s: %w", a, err)
	}
	if err := writeJSON(w.attemptPath(a), at); err != nil {
		return nil, at, err
	}
	log, err := os.OpenFile(w.logPath(a), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, at, fmt.Errorf("open the terraform %s log: %w", a, err)
	}
	fmt.Fprintf(log, "%sterraform %s, attempt %d, started %s ---\n", attemptMarker, a, at.Number, at.Started.Format(time.RFC3339))
	return log, at, nil
}

func (w workspace) finish(a Action, res result) error {
	res.Finished = time.Now().UTC()
	return writeJSON(w.resultPath(a), res)
}

// writeModule writes m into the module directory and removes files an
// earlier module had that m has not, keeping what terraform owns there
// (.terraform, the lock file, local state).
func (w workspace) writeModule(m Module) error {
	dir := w.moduleDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create workspace %s: %w", dir, err)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".terraform" {
				return filepath.SkipDir
			}
			return nil
		}
		if _, ok := m.Files[rel]; ok || terraformOwned(rel) {
			return nil
		}
		return os.Remove(p)
	})
	if err != nil {
		return fmt.Errorf("clean workspace %s: %w", dir, err)
	}
	for _, rel := range sortedKeys(m.Files) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return fmt.Errorf("write module file %s: %w", rel, err)
		}
		if err := os.WriteFile(p, m.Files[rel], 0o600); err != nil {
			return fmt.Errorf("write module file %s: %w", rel, err)
		}
	}
	return nil
}

func terraformOwned(rel string) bool {
	return rel == ".terraform.lock.hcl" || rel == ".terraform.tfstate.lock.info" ||
		strings.HasPrefix(rel, "terraform.tfstate")
}

func readJSON(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("read %s: %w (remove the file to forget the run)", path, err)
	}
	return true, nil
}

// writeJSON writes through a temporary file and a rename, so a reader
// never sees half a record.
func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// workspaceDir is the absolute workspace directory of run id.
func (l Local) workspaceDir(id string) (string, error) {
	if err := validateID(id); err != nil {
		return "", err
	}
	if l.Dir == "" {
		return "", fmt.Errorf("local terraform executor: Dir is empty: set it to the root of the workspaces")
	}
	dir, err := filepath.Abs(filepath.Join(l.Dir, id))
	if err != nil {
		return "", fmt.Errorf("workspace of %s: %w", id, err)
	}
	return dir, nil
}

// runWorkspace is the workspace of apply generation g (0 for a destroy)
// of cluster id, created when missing.
func (l Local) runWorkspace(id string, g int) (workspace, error) {
	root, err := l.workspaceDir(id)
	if err != nil {
		return workspace{}, err
	}
	w := workspace{dir: generationDir(root, g), root: root}
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		return workspace{}, fmt.Errorf("create workspace %s: %w", w.dir, err)
	}
	return w, nil
}

// generationDir holds the records of apply generation g: the cluster's
// workspace itself for 0, its update-<g> directory after.
func generationDir(root string, g int) string {
	if g == 0 {
		return root
	}
	return filepath.Join(root, fmt.Sprintf("update-%d", g))
}

func (l Local) existingWorkspace(id string) (workspace, error) {
	dir, err := l.workspaceDir(id)
	if err != nil {
		return workspace{}, err
	}
	if _, err := os.Stat(dir); err != nil {
		return workspace{}, sdk.NotFound("no terraform run for cluster %q: %s does not exist", id, dir)
	}
	return workspace{dir: dir, root: dir}, nil
}

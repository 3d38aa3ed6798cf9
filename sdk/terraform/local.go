package terraform

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// IDPlaceholder in a Local.Backend value is replaced by the run ID, e.g.
// key = "clusters/{id}.tfstate" for the s3 backend.
const IDPlaceholder = "{id}"

// Local runs terraform in a workspace directory per cluster, in a
// goroutine of the plugin process, through hashicorp/terraform-exec.
//
// Everything Status needs is on disk (see the layout below), so a new
// Local value in a restarted plugin reports on runs of the previous
// process. A run whose log has no result and that no goroutine of this
// process runs was interrupted (the plugin stopped, killing terraform);
// Status reports it Failed/Retryable and Start starts it again, resuming
// from the state in the backend. Only one process may use a Dir at a time.
//
// Layout: <Dir>/<ID>/module is terraform's working directory,
// <Dir>/<ID>/<action>.log holds terraform's real stdout and stderr of
// every attempt, <action>.attempt and <action>.result record the last
// attempt. Run.Env is passed to terraform only, never written.
type Local struct {
	// Dir is the root of the workspaces; it is created when missing.
	Dir string
	// Terraform is the terraform binary, "terraform" on PATH by default.
	Terraform string
	// Backend holds the -backend-config pairs for terraform init, e.g. for
	// the kubernetes backend config_path and namespace. IDPlaceholder in a
	// value is replaced by the run ID; when no value mentions it,
	// secret_suffix=StateSuffix(ID) is added, giving each cluster its own
	// state in the kubernetes backend. Empty: the module's backend block applies as
	// written (local state in the workspace when it has none).
	Backend map[string]string
	// LockTimeout is how long apply and destroy wait for a state lock
	// another client holds (terraform's -lock-timeout; 0 fails at once).
	LockTimeout time.Duration
	// Logger gets one line per run start and end; sdk.Logger() when nil.
	Logger hclog.Logger
}

var _ Executor = Local{}

// liveRun is an attempt a goroutine of this process runs.
type liveRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	root   string // the cluster's workspace
	name   string // runName
}

// live holds the attempts of this process, by workspace and action, so
// every Local value (and a new one after a simulated restart) agrees on
// what runs here.
var live = struct {
	sync.Mutex
	runs map[string]*liveRun
}{runs: map[string]*liveRun{}}

func liveKey(w workspace, a Action) string { return w.dir + "\x00" + string(a) }

// Start starts r in its workspace unless it is running or has succeeded.
// Starting a destroy stops the cluster's running applies (updates
// included) first (terraform is interrupted gracefully and releases the
// state lock); starting an apply while a destroy or another apply of the
// cluster runs is an sdk.FailedPrecondition error.
func (l Local) Start(ctx context.Context, r Run) error {
	if err := validateRun(r); err != nil {
		return err
	}
	w, err := l.runWorkspace(r.ID, r.Generation)
	if err != nil {
		return err
	}
	live.Lock()
	defer live.Unlock()
	key := liveKey(w, r.Action)
	others := liveIn(w.root, key)
	if len(others) > 0 && r.Action == Apply {
		return sdk.FailedPrecondition("terraform %s of cluster %q is running; wait until it ends", others[0].name, r.ID)
	}
	if live.runs[key] != nil {
		return nil
	}
	prev, err := w.record(r.Action)
	if err != nil {
		return err
	}
	if prev.result != nil && prev.result.State == sdk.Succeeded {
		return nil
	}
	before, err := l.earlierRecord(w, r)
	if err != nil {
		return err
	}
	var stopped []*liveRun
	for _, o := range others { // a destroy: stop them, its goroutine waits for them
		o.cancel()
		stopped = append(stopped, o)
	}
	if err := w.writeModule(r.Module); err != nil {
		return err
	}
	logf, at, err := w.begin(r.Action, prev)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	lr := &liveRun{cancel: cancel, done: make(chan struct{}), root: w.root, name: runName(r)}
	live.runs[key] = lr
	l.logger().Info("terraform run started", "cluster", r.ID, "action", r.Action, "generation", r.Generation,
		"attempt", at.Number, "workspace", w.dir, "env", envNames(r.Env))
	stale := staleWindow{from: earliestStart(prev, before), to: at.Started}
	go l.run(runCtx, w, r, stale, lr, stopped, logf)
	return nil
}

// earlierRecord is the record whose attempts may have left a lock r takes
// for stale besides its own: for generation 0 the other action's, for an
// update the update before it (never the first apply's: a lock of it is
// left for a person to look at).
func (l Local) earlierRecord(w workspace, r Run) (record, error) {
	switch {
	case r.Generation == 0:
		return workspace{dir: w.root, root: w.root}.record(otherAction(r.Action))
	case r.Generation > 1:
		return workspace{dir: generationDir(w.root, r.Generation-1), root: w.root}.record(Apply)
	}
	return record{}, nil
}

// runName names a run in messages: apply, destroy or update-<n>.
func runName(r Run) string {
	if r.Generation > 0 {
		return fmt.Sprintf("update-%d", r.Generation)
	}
	return string(r.Action)
}

// liveIn lists this process's attempts in the cluster workspace root,
// but the one of key. The caller holds live's lock.
func liveIn(root, key string) []*liveRun {
	var out []*liveRun
	for _, k := range sortedKeys(live.runs) {
		if lr := live.runs[k]; lr.root == root && k != key {
			out = append(out, lr)
		}
	}
	return out
}

func otherAction(a Action) Action {
	if a == Apply {
		return Destroy
	}
	return Apply
}

// run is the goroutine of one attempt. The result is written before the
// attempt leaves live, so Status never mistakes it for an interrupted one.
func (l Local) run(ctx context.Context, w workspace, r Run, stale staleWindow, lr *liveRun, stopped []*liveRun, logf *os.File) {
	defer close(lr.done)
	defer lr.cancel()
	for _, s := range stopped {
		<-s.done
	}
	res := l.attempt(ctx, w, r, stale, logf)
	if err := logf.Close(); err != nil && res.State == sdk.Succeeded {
		res = result{State: sdk.Failed, ErrorClass: sdk.Retryable, Message: fmt.Sprintf("write the terraform log: %v", err)}
	}
	if err := w.finish(r.Action, res); err != nil {
		l.logger().Error("terraform run result not recorded; it will be reported as interrupted",
			"cluster", r.ID, "action", r.Action, "error", err)
	}
	live.Lock()
	delete(live.runs, liveKey(w, r.Action))
	live.Unlock()
	l.logger().Info("terraform run ended", "cluster", r.ID, "action", r.Action, "state", res.State, "class", res.ErrorClass)
}

// attempt runs terraform init and apply (or destroy) once, and once more
// after removing a stale lock an earlier, interrupted attempt left.
func (l Local) attempt(ctx context.Context, w workspace, r Run, stale staleWindow, logf *os.File) result {
	tf, err := l.terraform(w, r.Env)
	if err != nil {
		return result{State: sdk.Failed, ErrorClass: sdk.Terminal, Message: err.Error()}
	}
	stderr := &tailBuffer{max: 64 << 10}
	tf.SetStdout(logf)
	tf.SetStderr(io.MultiWriter(logf, stderr))
	err = tf.Init(ctx, l.initOptions(r.ID)...)
	if err == nil {
		err = l.change(ctx, tf, r.Action)
		if li, ok := parseLockInfo(stderr.String()); ok && err != nil && stale.holds(li) {
			fmt.Fprintf(logf, "%sremoving the state lock %s that an interrupted attempt left (taken %s by %s); retrying ---\n",
				attemptMarker, li.ID, li.Created.UTC().Format(time.RFC3339), li.Who)
			stderr.Reset()
			if err = tf.ForceUnlock(ctx, li.ID); err == nil {
				err = l.change(ctx, tf, r.Action)
			}
		}
	}
	if err != nil && ctx.Err() != nil {
		return result{State: sdk.Failed, ErrorClass: sdk.Retryable,
			Message: fmt.Sprintf("terraform %s was stopped before it ended: a %s of the cluster started", r.Action, otherAction(r.Action))}
	}
	return l.resultOf(w, r.Action, err, stderr.String())
}

// resultOf turns the end of an attempt into a result, with terraform's
// own error from the log when there is one.
func (l Local) resultOf(w workspace, a Action, err error, stderr string) result {
	if err == nil {
		return result{State: sdk.Succeeded, Message: successMessage(a, l.summary(w, a))}
	}
	if li, ok := parseLockInfo(stderr); ok {
		return result{State: sdk.Failed, ErrorClass: sdk.Retryable, Message: lockedMessage(a, li)}
	}
	// Errors come from stderr alone: in the log, stdout lines that
	// terraform writes at the same time can land inside an error block.
	s := summarizeLog(strings.NewReader(stderr))
	if len(s.errors) > 0 {
		return result{State: sdk.Failed, ErrorClass: classify(s.errors), Message: s.failureMessage(a)}
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	return result{State: sdk.Failed, ErrorClass: sdk.Retryable,
		Message: fmt.Sprintf("terraform %s did not finish (%s); starting it again resumes from the state", a, first)}
}

// staleWindow is when a lock must have been taken to be stale: after the
// earliest last attempt (apply or destroy) in the workspace started and
// before the current one did.
type staleWindow struct{ from, to time.Time }

// holds says whether li was taken by an earlier attempt in this workspace:
// by this user on this host, within the window. No goroutine of this
// process runs such an attempt any more (Start checked, and a destroy
// waits for the apply it stops), so the lock outlived the terraform
// process that took it. One process per Dir is what makes this safe.
func (s staleWindow) holds(li lockInfo) bool {
	if s.from.IsZero() || li.Who != localWho() {
		return false
	}
	return !li.Created.Before(s.from.Add(-time.Second)) && li.Created.Before(s.to)
}

// earliestStart is when the earlier of the last attempts started, zero
// when there is none.
func earliestStart(recs ...record) time.Time {
	var t time.Time
	for _, r := range recs {
		if r.attempt != nil && (t.IsZero() || r.attempt.Started.Before(t)) {
			t = r.attempt.Started
		}
	}
	return t
}

func (l Local) change(ctx context.Context, tf *tfexec.Terraform, a Action) error {
	if a == Destroy {
		var opts []tfexec.DestroyOption
		if l.LockTimeout > 0 {
			opts = append(opts, tfexec.LockTimeout(l.LockTimeout.String()))
		}
		return tf.Destroy(ctx, opts...)
	}
	var opts []tfexec.ApplyOption
	if l.LockTimeout > 0 {
		opts = append(opts, tfexec.LockTimeout(l.LockTimeout.String()))
	}
	return tf.Apply(ctx, opts...)
}

// initOptions are the -backend-config pairs of run id, and -reconfigure
// so a changed Backend (say, a new namespace) is taken as given instead of
// failing init.
func (l Local) initOptions(id string) []tfexec.InitOption {
	opts := []tfexec.InitOption{tfexec.Reconfigure(true), tfexec.Upgrade(false)}
	for _, kv := range l.backendConfig(id) {
		opts = append(opts, tfexec.BackendConfig(kv))
	}
	return opts
}

// backendConfig is Backend for run id as sorted key=value pairs: the
// IDPlaceholder replaced, or secret_suffix=StateSuffix(id) added when no
// value has it.
func (l Local) backendConfig(id string) []string {
	if len(l.Backend) == 0 {
		return nil
	}
	var pairs []string
	mentioned := false
	for _, k := range sortedKeys(l.Backend) {
		v := l.Backend[k]
		mentioned = mentioned || strings.Contains(v, IDPlaceholder)
		pairs = append(pairs, k+"="+strings.ReplaceAll(v, IDPlaceholder, id))
	}
	if !mentioned {
		pairs = append(pairs, "secret_suffix="+StateSuffix(id))
	}
	return pairs
}

// terraform prepares terraform-exec in the workspace with the process
// environment plus env (names terraform-exec manages are left out of the
// process environment; validateRun refused them in env).
func (l Local) terraform(w workspace, env map[string]string) (*tfexec.Terraform, error) {
	bin, err := l.binary()
	if err != nil {
		return nil, err
	}
	tf, err := tfexec.NewTerraform(w.moduleDir(), bin)
	if err != nil {
		return nil, fmt.Errorf("prepare terraform in %s: %w", w.moduleDir(), err)
	}
	merged := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			merged[k] = v
		}
	}
	merged = tfexec.CleanEnv(merged)
	for k, v := range env {
		merged[k] = v
	}
	if err := tf.SetEnv(merged); err != nil {
		return nil, fmt.Errorf("terraform environment: %w", err)
	}
	return tf, nil
}

func (l Local) binary() (string, error) {
	name := l.Terraform
	if name == "" {
		name = "terraform"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("terraform binary %q not found: install terraform or set Local.Terraform: %w", name, err)
	}
	return p, nil
}

func (l Local) logger() hclog.Logger {
	if l.Logger != nil {
		return l.Logger
	}
	return sdk.Logger()
}

// Status reports on the last attempt of action a for cluster id.
func (l Local) Status(ctx context.Context, id string, a Action) (Status, error) {
	return l.statusOf(id, a, 0)
}

// GenerationStatus reports on the last attempt of apply generation g of
// cluster id.
func (l Local) GenerationStatus(ctx context.Context, id string, g int) (Status, error) {
	if g < 0 {
		return Status{}, sdk.NotFound("no terraform apply generation %d for cluster %q", g, id)
	}
	return l.statusOf(id, Apply, g)
}

func (l Local) statusOf(id string, a Action, g int) (Status, error) {
	root, err := l.existingWorkspace(id)
	if err != nil {
		return Status{}, err
	}
	w := workspace{dir: generationDir(root.dir, g), root: root.dir}
	live.Lock()
	running := live.runs[liveKey(w, a)] != nil
	live.Unlock()
	rec, err := w.record(a)
	if err != nil {
		return Status{}, err
	}
	name := runName(Run{Action: a, Generation: g})
	if rec.attempt == nil {
		return Status{}, sdk.NotFound("no terraform %s run for cluster %q in %s", name, id, w.dir)
	}
	s := l.summary(w, a)
	switch {
	case rec.result != nil:
		st := Status{State: rec.result.State, Message: rec.result.Message, ErrorClass: rec.result.ErrorClass,
			Progress: s.progress(), LogTail: s.tail, Follow: w.logPath(a)}
		if st.State == sdk.Succeeded {
			st.Progress = 100
		}
		return st, nil
	case running:
		return Status{State: sdk.Running, Message: s.runningMessage(a), Progress: s.progress(), LogTail: s.tail,
			Follow: w.logPath(a)}, nil
	default:
		return Status{State: sdk.Failed, ErrorClass: sdk.Retryable, Progress: s.progress(), LogTail: s.tail,
			Follow: w.logPath(a), Message: fmt.Sprintf("terraform %s was interrupted (the plugin stopped while it ran); "+
				"starting it again resumes from the state", name)}, nil
	}
}

// summary reads the log of the last attempt of a; a missing log reads as
// empty.
func (l Local) summary(w workspace, a Action) logSummary {
	f, err := os.Open(w.logPath(a))
	if err != nil {
		return logSummary{}
	}
	defer f.Close()
	return summarizeLog(f)
}

// Outputs runs terraform output in the workspace, which reads the state
// from whatever backend the apply used. It needs no Run.Env for the
// kubernetes backend; a backend that needs credentials from Env (e.g. s3)
// cannot be read after a restart this way.
func (l Local) Outputs(ctx context.Context, id string) (map[string]json.RawMessage, error) {
	st, err := l.Status(ctx, id, Apply)
	if err != nil {
		return nil, err
	}
	if st.State != sdk.Succeeded {
		return nil, sdk.FailedPrecondition("terraform apply of cluster %q has not succeeded (%s): %s", id, st.State, st.Message)
	}
	w, _ := l.existingWorkspace(id)
	tf, err := l.terraform(w, nil)
	if err != nil {
		return nil, err
	}
	metas, err := tf.Output(ctx)
	if err != nil {
		return nil, fmt.Errorf("terraform output for cluster %q: %w", id, err)
	}
	out := make(map[string]json.RawMessage, len(metas))
	for k, m := range metas {
		out[k] = m.Value
	}
	return out, nil
}

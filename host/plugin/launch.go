package plugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
)

// StartError says why a plugin could not be started.
type StartError struct {
	Reason Reason
	Detail string
	Err    error
}

func (e *StartError) Error() string { return string(e.Reason) + ": " + e.Detail }
func (e *StartError) Unwrap() error { return e.Err }

// process is one running plugin.
type process struct {
	client   *goplugin.Client
	rpc      goplugin.ClientProtocol
	provider sdk.Provider
	info     sdk.Info
	stderr   *tail
	started  time.Time
	pid      int
	// inflight counts the calls being served; retired is set once another
	// process took over (see retire).
	inflight atomic.Int64
	retired  atomic.Bool
}

// launch verifies c's checksum (see verify), starts it, completes the handshake and reads
// its Info. On failure the process is gone and the error is a *StartError.
// It is launched as hostenv.ClientConfig says (the plugin gets the
// environment hostenv.PluginEnv builds, none of the host's own), which the
// conformance kit uses too.
func launch(ctx context.Context, c Candidate, o Options) (*process, error) {
	log := o.Logger
	if err := verify(c); err != nil {
		return nil, classifyStartError(err, c, nil)
	}
	cfg := hostenv.ClientConfig(c.Path, c.Name, os.Environ(), o.PassEnv)
	cmd := cfg.Cmd
	setParentDeathSignal(cmd)
	cfg.StartTimeout = o.StartTimeout
	cfg.Logger = log.Named(c.Name)
	errTail := newTail(64)
	cfg.Stderr = errTail
	cfg.SyncStdout = logWriter{log: log.Named(c.Name), msg: "plugin wrote to stdout; plugins must log to stderr"}
	cfg.SyncStderr = logWriter{log: log.Named(c.Name), msg: "plugin stderr"}

	client := goplugin.NewClient(cfg)
	prov, err := sdk.Connect(client)
	closeInherited(cmd) // the process has its own copies
	if err != nil {
		client.Kill()
		return nil, classifyStartError(err, c, errTail.lines())
	}
	rpc, _ := client.Client() // already connected by Connect
	info, err := prov.GetInfo(ctx)
	if err != nil {
		client.Kill()
		return nil, &StartError{Reason: HandshakeFailed, Detail: "GetInfo: " + err.Error(), Err: err}
	}
	if info.Name != c.Name {
		client.Kill()
		return nil, &StartError{Reason: HandshakeFailed,
			Detail: fmt.Sprintf("binary is named for %q but the plugin reports name %q; rename one to match", c.Name, info.Name)}
	}
	pid := 0
	if rc := client.ReattachConfig(); rc != nil {
		pid = rc.Pid
	}
	return &process{client: client, rpc: rpc, provider: prov, info: info, stderr: errTail, started: time.Now(), pid: pid}, nil
}

// hashAndLaunch records c's checksum and launches it at once: the file is
// hashed while the process starts and completes its handshake, since each
// takes tens of milliseconds. What runs is what was hashed when the stamp
// taken before the start (scan's) is the stamp of the bytes hashed: a file
// replaced or rewritten since changes it, and Linux refuses writes to a
// binary that is running. Otherwise the process is stopped and the
// candidate skipped. Without stamps (not Linux) it hashes first.
func hashAndLaunch(ctx context.Context, c *Candidate, o Options) (*process, error) {
	if !c.stamp.valid() {
		sum, stamp, err := hashFile(c.Path)
		if err != nil {
			return nil, &StartError{Reason: NotExecutable, Detail: err.Error(), Err: err}
		}
		c.Checksum, c.stamp = sum, stamp
		return launch(ctx, *c, o)
	}
	type hashed struct {
		sum   []byte
		stamp fileStamp
		err   error
	}
	done := make(chan hashed, 1)
	go func() {
		sum, stamp, err := hashFile(c.Path)
		done <- hashed{sum, stamp, err}
	}()
	p, err := launch(ctx, *c, o)
	h := <-done
	if h.err == nil && h.stamp != c.stamp {
		h.err = fmt.Errorf("%s changed while it was started; install plugins by rename (copy to a temporary name, then mv): the host loads the new file by itself", c.Path)
	}
	if h.err != nil {
		if p != nil {
			p.forceKill()
		}
		return nil, &StartError{Reason: NotExecutable, Detail: h.err.Error(), Err: h.err}
	}
	c.Checksum = h.sum
	return p, err
}

// closeInherited closes the host's ends of what cmd passed to the process
// (the SDK's pipe of its TLS identity); the process keeps its own.
func closeInherited(cmd *exec.Cmd) {
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
}

// forceKill sends SIGKILL. go-plugin's Kill first asks the plugin to shut
// down over gRPC and waits without a deadline, which hangs on a plugin that
// is stuck; watch notices the exit and go-plugin reaps the process.
func (p *process) forceKill() {
	if proc, err := os.FindProcess(p.pid); err == nil && p.pid > 0 {
		_ = proc.Kill()
		return
	}
	p.client.Kill()
}

// classifyStartError turns go-plugin's start errors, which are mostly text,
// into a Reason and a detail that says what to do.
func classifyStartError(err error, c Candidate, stderr []string) *StartError {
	var mismatch *sdk.ProtocolMismatchError
	msg := err.Error()
	last := lastLines(stderr, 3)
	switch {
	case errors.Is(err, errChecksumMismatch):
		return &StartError{Reason: ChecksumMismatch, Err: err, Detail: fmt.Sprintf(
			"%s was written to while it was being started (expected sha256 %s): install a plugin by rename "+
				"(copy it to a temporary name in the plugin directory, then mv it over %s); the host loads the new file by itself",
			c.Path, c.ShortChecksum(), filepath.Base(c.Path))}
	case errors.As(err, &mismatch):
		return &StartError{Reason: ProtocolMismatch, Detail: mismatch.Error(), Err: err}
	case strings.Contains(msg, "timeout while waiting for plugin to start"):
		return &StartError{Reason: HandshakeTimedOut, Err: err,
			Detail: "no handshake within the start timeout; is it a KubeOpera plugin that calls sdk.Serve?"}
	case strings.Contains(msg, "exec format error"), strings.Contains(msg, "permission denied"):
		return &StartError{Reason: NotExecutable, Detail: msg, Err: err}
	case strings.Contains(msg, "plugin exited before we could connect"),
		strings.Contains(msg, "Failed to read any lines from plugin's stdout"):
		return &StartError{Reason: ExitedAtStart, Err: err, Detail: orDefault(last, "exited without output")}
	case strings.Contains(msg, "Unrecognized remote plugin message: "):
		line := strings.SplitN(strings.SplitN(msg, "Unrecognized remote plugin message: ", 2)[1], "\n", 2)[0]
		return &StartError{Reason: PrintedToStdout, Err: err,
			Detail: fmt.Sprintf("stdout is reserved for the handshake, got %q", truncate(line, 80))}
	}
	return &StartError{Reason: HandshakeFailed, Detail: orDefault(strings.TrimSpace(msg+" "+last), msg), Err: err}
}

func lastLines(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// logWriter logs each write as one line at warn level.
type logWriter struct {
	log hclog.Logger
	msg string
}

func (w logWriter) Write(p []byte) (int, error) {
	if s := strings.TrimSpace(string(p)); s != "" {
		w.log.Warn(w.msg, "output", truncate(s, 512))
	}
	return len(p), nil
}

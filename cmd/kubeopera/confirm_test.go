//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// openPTY opens a pseudo-terminal: master is the keyboard and screen the
// test uses, tty the terminal the command reads as its standard input.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Fatalf("find the pseudo-terminal's number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Fatalf("open the pseudo-terminal: %v", err)
	}
	return master, tty
}

// runOnTerminal runs the CLI with a pseudo-terminal as its standard input
// and error, types answer and Enter once the name is asked for, and returns
// what it printed on standard output, what the terminal showed, and its
// error.
func runOnTerminal(t *testing.T, answer string, args ...string) (out, screen string, err error) {
	t.Helper()
	master, tty := openPTY(t)
	var mu sync.Mutex
	var shown strings.Builder
	typed := false
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 1024)
		for {
			n, rerr := master.Read(buf)
			mu.Lock()
			shown.Write(buf[:n])
			if !typed && strings.Contains(shown.String(), "Type the cluster's name") {
				typed = true
				if _, werr := master.Write([]byte(answer + "\n")); werr != nil {
					t.Errorf("type the answer: %v", werr)
				}
			}
			mu.Unlock()
			if rerr != nil {
				return
			}
		}
	}()
	cmd := newRootCommand()
	var stdout bytes.Buffer
	cmd.SetIn(tty)
	cmd.SetOut(&stdout)
	cmd.SetErr(tty)
	cmd.SetArgs(args)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(context.Background()) }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		master.Close() // hangs the terminal up, which ends the command's read
		err = <-done
		t.Errorf("%v: still running after a minute (err %v)", args, err)
	}
	tty.Close()
	master.Close()
	<-read
	mu.Lock()
	defer mu.Unlock()
	return stdout.String(), shown.String(), err
}

// Teardown and disconnect destroy or let go of a cluster only when the user
// means it: on a terminal they ask for the cluster's name and go on only
// when it is typed right; without a terminal they need --yes or --confirm
// with the right name, and say so. A request that reaches the server shows
// as its answer: a disconnect is done at once (no management cluster), a
// teardown answers 503; a refusal is exit 2 and leaves the cluster listed.
func TestTeardownAndDisconnectAskForTheClustersName(t *testing.T) {
	names := []string{"d-right", "d-wrong", "d-pipe", "d-confirm", "d-confirm-wrong", "d-yes", "d-empty"}
	var rows []store.Cluster
	for _, n := range names {
		rows = append(rows, store.Cluster{Name: n, Provider: "gcp", Source: store.SourceConnectedExisting, Status: "Failed"})
	}
	rows = append(rows, store.Cluster{Name: "prod", Provider: "aws", Source: store.SourceProvisionedEKS, Plugin: "aws-eks", Status: "Ready"})
	url := startCLIServer(t, rows...)
	t.Setenv("KUBEOPERA_CONFIG", t.TempDir()+"/config.yaml")
	t.Setenv("KUBEOPERA_SERVER", "")
	t.Setenv("KUBEOPERA_TOKEN", "")
	if out, err := runCLI(t, cliPassword+"\n", "login", url, "-u", "ops", "--password-stdin"); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}

	tests := []struct {
		name     string
		terminal bool
		answer   string // typed at the prompt on the terminal
		asks     bool   // the terminal shows the prompt
		args     []string
		code     int
		says     string // in the error or the output
		gone     string // a cluster that must be gone afterwards
		kept     string // a cluster that must still be listed
	}{
		{name: "a terminal's right answer disconnects", terminal: true, asks: true, answer: "d-right",
			args: []string{"clusters", "disconnect", "d-right"}, code: exitOK, says: "d-right: disconnected", gone: "d-right"},
		{name: "a terminal's wrong answer disconnects nothing", terminal: true, asks: true, answer: "d-rihgt",
			args: []string{"clusters", "disconnect", "d-wrong"}, code: exitUsage, says: `you typed "d-rihgt", not the cluster's name "d-wrong": nothing was done`, kept: "d-wrong"},
		{name: "a terminal's empty answer disconnects nothing", terminal: true, asks: true, answer: "",
			args: []string{"clusters", "disconnect", "d-empty"}, code: exitUsage, says: "no name was typed: clusters disconnect was not done", kept: "d-empty"},
		{name: "a terminal's right answer sends the teardown", terminal: true, asks: true, answer: "prod",
			args: []string{"clusters", "teardown", "prod"}, code: exitUnavailable, says: "503 Service Unavailable"},
		{name: "a terminal's wrong answer sends no teardown", terminal: true, asks: true, answer: "staging",
			args: []string{"clusters", "teardown", "prod"}, code: exitUsage, says: `you typed "staging", not the cluster's name "prod": nothing was done`, kept: "prod"},
		{name: "no terminal and no flag: the disconnect is refused, saying what to pass",
			args: []string{"clusters", "disconnect", "d-pipe"}, code: exitUsage,
			says: "standard input is not a terminal, so clusters disconnect cannot ask you to type the cluster's name: pass --confirm d-pipe (or --yes) to disconnect it", kept: "d-pipe"},
		{name: "no terminal and no flag: the teardown is refused, saying what to pass",
			args: []string{"clusters", "teardown", "prod"}, code: exitUsage, says: "pass --confirm prod (or --yes) to tear it down", kept: "prod"},
		{name: "--confirm with another name disconnects nothing",
			args: []string{"clusters", "disconnect", "d-confirm-wrong", "--confirm", "d-confirm"}, code: exitUsage,
			says: `--confirm "d-confirm" is not the cluster's name "d-confirm-wrong": nothing was done`, kept: "d-confirm-wrong"},
		{name: "--confirm with the name disconnects", args: []string{"clusters", "disconnect", "d-confirm", "--confirm", "d-confirm"},
			code: exitOK, says: "d-confirm: disconnected", gone: "d-confirm"},
		{name: "--yes disconnects", args: []string{"clusters", "disconnect", "d-yes", "--yes"}, code: exitOK, says: "d-yes: disconnected", gone: "d-yes"},
		{name: "--yes sends the teardown", args: []string{"clusters", "teardown", "prod", "--yes"}, code: exitUnavailable, says: "503 Service Unavailable"},
		{name: "--confirm with the name sends the teardown", args: []string{"clusters", "teardown", "prod", "--confirm", "prod"},
			code: exitUnavailable, says: "503 Service Unavailable"},
		{name: "--yes on a terminal does not ask", terminal: true, answer: "never typed",
			args: []string{"clusters", "teardown", "prod", "-y"}, code: exitUnavailable, says: "503 Service Unavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, screen string
			var err error
			if tc.terminal {
				out, screen, err = runOnTerminal(t, tc.answer, tc.args...)
			} else {
				out, err = runCLI(t, "", tc.args...)
			}
			if got := exitCodeOf(err); got != tc.code {
				t.Errorf("exit %d (%v), want %d\nout: %s\nterminal: %q", got, err, tc.code, out, screen)
			}
			if said := out + fmt.Sprint(err); !strings.Contains(said, tc.says) {
				t.Errorf("said %q, want it to say %q", said, tc.says)
			}
			if asked := strings.Contains(screen, "Type the cluster's name ("+tc.args[2]+")"); asked != tc.asks {
				t.Errorf("asked for the name: %v, want %v; the terminal showed %q", asked, tc.asks, screen)
			}
			if tc.gone != "" {
				if _, err := runCLI(t, "", "clusters", "get", tc.gone); exitCodeOf(err) != exitNotFound {
					t.Errorf("%s is still there: %v", tc.gone, err)
				}
			}
			if tc.kept != "" {
				if out, err := runCLI(t, "", "clusters", "get", tc.kept); err != nil || !strings.Contains(out, tc.kept) {
					t.Errorf("%s is gone: %v\n%s", tc.kept, err, out)
				}
			}
		})
	}
}

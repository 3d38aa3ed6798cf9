package plugin

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

func TestClassifyStartError(t *testing.T) {
	c := Candidate{Name: "x", Path: "/p/kubeopera-provider-x", Checksum: make([]byte, 32)}
	cases := []struct {
		name   string
		err    error
		stderr []string
		reason Reason
		detail string
	}{
		{"checksum", fmt.Errorf("wrap: %w", errChecksumMismatch), nil, ChecksumMismatch, "install a plugin by rename (copy it to a temporary name in the plugin directory, then mv it over kubeopera-provider-x); the host loads the new file by itself"},
		{"protocol", &sdk.ProtocolMismatchError{Plugin: 2, Host: 1}, nil, ProtocolMismatch, "plugin speaks kubeopera.provider.v2, this host speaks v1; upgrade KubeOpera"},
		{"older plugin", &sdk.ProtocolMismatchError{Plugin: 1, Host: 2}, nil, ProtocolMismatch, "rebuild the plugin"},
		{"timeout", errors.New("timeout while waiting for plugin to start"), nil, HandshakeTimedOut, "sdk.Serve"},
		{"exec format", errors.New("fork/exec /p/x: exec format error"), nil, NotExecutable, "exec format error"},
		{"exited", errors.New("plugin exited before we could connect"), []string{"a", "b", "config missing"}, ExitedAtStart, "config missing"},
		{"exited silently", errors.New("Unrecognized remote plugin message: \nFailed to read any lines from plugin's stdout"), nil, ExitedAtStart, "exited without output"},
		{"stdout", errors.New("Unrecognized remote plugin message: hello\nThis usually means"), nil, PrintedToStdout, `"hello"`},
		{"other", errors.New("unsupported plugin protocol \"netrpc\""), nil, HandshakeFailed, "netrpc"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := classifyStartError(tc.err, c, tc.stderr)
			if got.Reason != tc.reason || !strings.Contains(got.Detail, tc.detail) {
				t.Errorf("got %q: %q; want %q containing %q", got.Reason, got.Detail, tc.reason, tc.detail)
			}
		})
	}
}

func TestTailKeepsLastLinesAndFindsThePanic(t *testing.T) {
	tl := newTail(3)
	fmt.Fprint(tl, "log 1\nlog 2\npanic: boom\n\ngoroutine 1 [running]:\npartial")
	if got := tl.lines(); len(got) != 3 || got[0] != "panic: boom" {
		t.Errorf("lines = %q, want the last 3 complete lines", got)
	}
	if got := tl.crash(); !strings.HasPrefix(got, "panic: boom\n") || !strings.Contains(got, "goroutine 1") {
		t.Errorf("crash = %q, want the panic and its stack", got)
	}
	if got := newTail(3).crash(); got != "process exited without output" {
		t.Errorf("empty crash = %q", got)
	}
}

func TestBackoffDoublesAndCaps(t *testing.T) {
	h := &Host{opts: Options{MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}}
	i := &instance{host: h}
	var got []time.Duration
	for n := 1; n <= 6; n++ {
		i.crashes = n
		got = append(got, i.backoff())
	}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for n := range want {
		if got[n] != want[n]*time.Millisecond {
			t.Fatalf("backoffs = %v, want %v ms", got, want)
		}
	}
	i.crashes = 80 // the shift overflows: still capped
	if b := i.backoff(); b != time.Second {
		t.Errorf("backoff after 80 crashes = %v", b)
	}
}

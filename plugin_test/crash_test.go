package plugin_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/sdk"
)

func pidOf(t *testing.T, h *plugin.Host, name string) plugin.Plugin {
	t.Helper()
	for _, p := range h.Plugins() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no plugin %q", name)
	return plugin.Plugin{}
}

func TestSIGKILLDuringCallRestartsPluginAndNextCallSucceeds(t *testing.T) {
	markers := setMarkers(t)
	h, logs := openHost(t, plugin.Options{Dir: pluginDir(t, "fixture")})
	p, _ := h.Provider("fixture")
	before := pidOf(t, h, "fixture")

	pid, errc := blockInPlugin(ctxTimeout(t, 20*time.Second), t, p, markers)
	if pid != before.PID {
		t.Fatalf("blocked in pid %d, host reports %d", pid, before.PID)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-errc
	if !sdk.IsRetryable(err) || !strings.Contains(err.Error(), "provider fixture crashed during Status") {
		t.Fatalf("in-flight call = %v (kind %q), want a retryable error saying the provider crashed", err, sdk.KindOf(err))
	}

	st, err := p.Status(ctxTimeout(t, 20*time.Second), sdk.StatusRequest{OperationID: "ok"})
	if err != nil || st.State != sdk.Succeeded {
		t.Fatalf("call after the crash = %+v, %v; want SUCCEEDED", st, err)
	}
	after := pidOf(t, h, "fixture")
	if after.Restarts != 1 || after.PID == before.PID || after.PID == 0 {
		t.Errorf("after restart: restarts %d, pid %d (was %d)", after.Restarts, after.PID, before.PID)
	}
	if !strings.Contains(logs.String(), "provider fixture crashed") {
		t.Errorf("host log does not report the crash:\n%s", logs)
	}
}

func TestPanicFailsOnlyItsCallAndLogsTheStack(t *testing.T) {
	h, logs := openHost(t, plugin.Options{Dir: pluginDir(t, "fixture")})
	p, _ := h.Provider("fixture")
	before := pidOf(t, h, "fixture")
	_, err := p.Status(ctxTimeout(t, 20*time.Second), sdk.StatusRequest{OperationID: "panic"})
	if sdk.KindOf(err) != sdk.KindInternal || sdk.IsRetryable(err) ||
		!strings.Contains(err.Error(), "plugin panicked in Status: fixture asked to panic") {
		t.Fatalf("Status(panic) = %v (kind %q), want an internal error quoting the panic", err, sdk.KindOf(err))
	}
	if _, err := p.Status(ctxTimeout(t, 20*time.Second), sdk.StatusRequest{OperationID: "ok"}); err != nil {
		t.Fatalf("call after the panic: %v", err)
	}
	if after := pidOf(t, h, "fixture"); after.PID != before.PID || after.Restarts != 0 || after.Health != plugin.Healthy {
		t.Errorf("after one panic: pid %d (was %d), restarts %d, health %s; want the same process, healthy",
			after.PID, before.PID, after.Restarts, after.Health)
	}
	if log := logs.String(); !strings.Contains(log, "panic in Status") || !strings.Contains(log, "goroutine ") {
		t.Errorf("host log lacks the panic and its stack:\n%s", log)
	}
}

func TestPluginThatKeepsPanickingIsDegradedAndBackedOff(t *testing.T) {
	h, _ := openHost(t, plugin.Options{Dir: pluginDir(t, "fixture"), MinBackoff: 2 * time.Second, DegradedAfter: 3})
	p, _ := h.Provider("fixture")
	for range 3 {
		if _, err := p.Status(ctxTimeout(t, 20*time.Second), sdk.StatusRequest{OperationID: "panic"}); sdk.KindOf(err) != sdk.KindInternal {
			t.Fatalf("Status(panic) = %v, want an internal error", err)
		}
	}
	got := pidOf(t, h, "fixture")
	if got.Health != plugin.Degraded || !strings.Contains(got.LastError, "3 failures in a row") ||
		!strings.Contains(got.LastError, "fixture asked to panic") {
		t.Fatalf("after 3 panics: health %q, last error %q; want degraded with the panic", got.Health, got.LastError)
	}
	start := time.Now()
	_, err := p.Status(ctxTimeout(t, 20*time.Second), sdk.StatusRequest{OperationID: "ok"})
	if !sdk.IsRetryable(err) || !strings.Contains(err.Error(), "degraded") || time.Since(start) > time.Second {
		t.Fatalf("call while backing off = %v after %v, want an immediate retryable refusal", err, time.Since(start))
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err = p.Status(ctxTimeout(t, 20*time.Second), sdk.StatusRequest{OperationID: "ok"})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || pidOf(t, h, "fixture").Health != plugin.Healthy {
		t.Fatalf("after the backoff: %v, health %s; want the call through and the plugin healthy again", err, pidOf(t, h, "fixture").Health)
	}
}

func TestCallDeadlineEndsAHungCallWithoutKillingThePlugin(t *testing.T) {
	markers := setMarkers(t)
	h, _ := openHost(t, plugin.Options{Dir: pluginDir(t, "fixture"), CallTimeout: time.Second})
	p, _ := h.Provider("fixture")
	start := time.Now()
	_, errc := blockInPlugin(ctxTimeout(t, 20*time.Second), t, p, markers)
	err := <-errc
	if !errors.Is(err, sdk.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "did not answer before its deadline") {
		t.Fatalf("hung call = %v, want DeadlineExceeded naming the provider", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("the 1s deadline took %v to end the call", waited)
	}
	if _, err := p.Status(ctxTimeout(t, 5*time.Second), sdk.StatusRequest{OperationID: "ok"}); err != nil {
		t.Fatalf("call after the deadline: %v", err)
	}
	if r := pidOf(t, h, "fixture").Restarts; r != 0 {
		t.Errorf("a deadline restarted the plugin %d times", r)
	}
}

func TestStoppedPluginFailsHealthCheckAndIsRestarted(t *testing.T) {
	h, logs := openHost(t, plugin.Options{Dir: pluginDir(t, "fixture"), HealthInterval: 200 * time.Millisecond})
	before := pidOf(t, h, "fixture")
	if err := syscall.Kill(before.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(before.PID, syscall.SIGKILL) })
	deadline := time.Now().Add(20 * time.Second)
	for pidOf(t, h, "fixture").Restarts == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("a stopped plugin was not restarted; log:\n%s", logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p, _ := h.Provider("fixture")
	if _, err := p.Status(ctxTimeout(t, 10*time.Second), sdk.StatusRequest{OperationID: "ok"}); err != nil {
		t.Fatalf("call after the health restart: %v", err)
	}
	if !strings.Contains(logs.String(), "health check") {
		t.Errorf("log does not say why the plugin was restarted:\n%s", logs)
	}
}

// A binary renamed over a plugin while its process is down (it crashed)
// is what the restart runs, with its own checksum recorded and listed: an
// install by rename is an upgrade (upgrade_test.go), never a mismatch that
// only a host restart could clear.
func TestBinaryRenamedInWhileDownIsRestartedWithItsChecksum(t *testing.T) {
	dir := pluginDir(t, "fixture")
	h, _ := openHost(t, plugin.Options{Dir: dir, RescanInterval: time.Hour})
	p, _ := h.Provider("fixture")
	before := h.Plugins()[0].Checksum
	path := filepath.Join(dir, "kubeopera-provider-fixture")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := append(orig, []byte("another build")...)
	writeFile(t, path+".new", changed, 0o755)
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pidOf(t, h, "fixture").PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, err = p.Status(ctxTimeout(t, 10*time.Second), sdk.StatusRequest{OperationID: "ok"})
	for i := 0; err != nil && strings.Contains(err.Error(), "crashed"); i++ {
		// The kill may land during the call; the next one meets the new file.
		_, err = p.Status(ctxTimeout(t, 10*time.Second), sdk.StatusRequest{OperationID: "ok"})
	}
	if err != nil {
		t.Fatalf("call after the file was replaced and the plugin crashed = %v, want the new file serving", err)
	}
	sum := sha256.Sum256(changed)
	if got := h.Plugins()[0].Checksum; got != hex.EncodeToString(sum[:]) || got == before {
		t.Errorf("listed checksum %s (before %s), want the new file's %x", got, before, sum)
	}
}

func TestCloseStopsEveryPluginProcess(t *testing.T) {
	h, _ := openHost(t, plugin.Options{Dir: pluginDir(t, productPlugins...)})
	var pids []int
	for _, p := range h.Plugins() {
		pids = append(pids, p.PID)
	}
	h.Close()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("plugin pid %d still exists after Close (kill 0: %v)", pid, err)
		}
	}
}

package plugin_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// installByRename installs the binary src as the plugin file dst the way
// the install doc says: copied to a temporary name beside it, then renamed
// over it (a copy over a running binary fails with "text file busy").
func installByRename(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(dst), ".install-"+filepath.Base(dst))
	writeFile(t, tmp, data, 0o755)
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

// waitUntil polls cond every 20ms for up to 15s; what names it on failure.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 15s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A new binary renamed over a running plugin is loaded without a restart:
// the host launches it beside the old process, new calls (and the
// providers list) get the new version, a call in flight finishes on the old
// process, which then stops. A binary the host cannot speak to is refused
// with the protocol it needs, and the version before keeps serving.
func TestPluginUpgradesInPlace(t *testing.T) {
	markers := setMarkers(t)
	dir := pluginDir(t, "fixture")
	v2 := filepath.Join(t.TempDir(), "kubeopera-provider-fixture")
	if err := goBuild(v2, "./testdata/fixture", "-X main.version=2.0.0"); err != nil {
		t.Fatal(err)
	}
	h, logs := openHost(t, plugin.Options{Dir: dir, RescanInterval: 50 * time.Millisecond})
	p, err := h.Provider("fixture")
	if err != nil {
		t.Fatal(err)
	}
	version := func() string { return h.Plugins()[0].Info.PluginVersion }
	if v := version(); v != "test" {
		t.Fatalf("before the upgrade the host lists version %q", v)
	}

	held := make(chan sdk.OperationStatus, 1)
	go func() {
		st, err := p.Status(ctxTimeout(t, 30*time.Second), sdk.StatusRequest{OperationID: "hold"})
		if err != nil {
			st.Message = "error: " + err.Error()
		}
		held <- st
	}()
	var oldPID int
	waitUntil(t, "the old process is inside the held call", func() bool {
		m, _ := filepath.Glob(filepath.Join(markers, "hold-*"))
		if len(m) == 1 {
			oldPID, _ = strconv.Atoi(strings.TrimPrefix(filepath.Base(m[0]), "hold-"))
		}
		return oldPID != 0
	})

	installByRename(t, v2, filepath.Join(dir, "kubeopera-provider-fixture"))
	waitUntil(t, "the host lists the new version", func() bool { return version() == "2.0.0" })
	info, err := p.GetInfo(ctxTimeout(t, 10*time.Second))
	if err != nil || info.PluginVersion != "2.0.0" {
		t.Fatalf("GetInfo after the upgrade = %q, %v; want the new process to answer", info.PluginVersion, err)
	}
	if pid := h.Plugins()[0].PID; pid == oldPID || pid == 0 {
		t.Errorf("the listed process is %d, the old one was %d", pid, oldPID)
	}
	if err := syscall.Kill(oldPID, 0); err != nil {
		t.Errorf("the old process stopped while it was serving a call: %v", err)
	}

	writeFile(t, filepath.Join(markers, "release"), nil, 0o644)
	if st := <-held; st.State != sdk.Succeeded || st.Message != "served by test" {
		t.Errorf("the call in flight across the upgrade ended %s %q; want it finished by the old process", st.State, st.Message)
	}
	waitUntil(t, "the old process exits once its call returned", func() bool { return syscall.Kill(oldPID, 0) != nil })
	if st, err := p.Status(ctxTimeout(t, 10*time.Second), sdk.StatusRequest{OperationID: "hold"}); err != nil || st.Message != "served by 2.0.0" {
		t.Errorf("the operation asked again after the upgrade: %q, %v; want the new process to serve it", st.Message, err)
	}

	installByRename(t, built.plugins["future"], filepath.Join(dir, "kubeopera-provider-fixture"))
	waitUntil(t, "the refused upgrade is reported", func() bool { return h.Plugins()[0].UpgradeRefused != "" })
	refused := h.Plugins()[0].UpgradeRefused
	if !strings.Contains(refused, "plugin speaks kubeopera.provider.v2, this host speaks v1") || !strings.Contains(refused, "keeps serving") {
		t.Errorf("refused upgrade reported as %q; want the protocol it needs and that the old version serves on", refused)
	}
	if info, err := p.GetInfo(ctxTimeout(t, 10*time.Second)); err != nil || info.PluginVersion != "2.0.0" || version() != "2.0.0" {
		t.Errorf("after a refused upgrade: GetInfo %q, %v, listed %q; want 2.0.0 serving on", info.PluginVersion, err, version())
	}
	if !strings.Contains(logs.String(), "provider upgraded in place") {
		t.Errorf("the host did not log the upgrade:\n%s", logs.String())
	}
}

// A plugin installed under a new name while the host runs is loaded
// without a restart: listed, served and logged; a new file that cannot
// start is listed as skipped with its reason and not retried until it
// changes; the plugins already running are not disturbed.
func TestNewPluginIsLoadedWithoutARestart(t *testing.T) {
	dir := pluginDir(t, "fixture")
	h, logs := openHost(t, plugin.Options{Dir: dir, RescanInterval: 50 * time.Millisecond})
	before := h.Plugins()[0].PID
	if _, err := h.Provider("aws-eks"); err == nil {
		t.Fatal("aws-eks is served before it is installed")
	}
	installByRename(t, built.plugins["aws-eks"], filepath.Join(dir, "kubeopera-provider-aws-eks"))
	waitUntil(t, "the new plugin is listed", func() bool { return len(h.Plugins()) == 2 })
	p, err := h.Provider("aws-eks")
	if err != nil {
		t.Fatal(err)
	}
	if info, err := p.GetInfo(ctxTimeout(t, 10*time.Second)); err != nil || info.Name != "aws-eks" {
		t.Fatalf("GetInfo of the new plugin = %+v, %v", info, err)
	}
	if pid := h.Plugins()[1].PID; h.Plugins()[0].Name != "aws-eks" && pid != before {
		t.Errorf("the plugin that was running restarted (pid %d, was %d)", pid, before)
	}
	if !strings.Contains(logs.String(), "new provider loaded") {
		t.Errorf("the host did not log the new plugin:\n%s", logs.String())
	}

	installByRename(t, built.plugins["future"], filepath.Join(dir, "kubeopera-provider-future"))
	var refused plugin.Skipped
	waitUntil(t, "the new file that cannot start is listed as skipped", func() bool {
		for _, s := range h.Skipped() {
			if filepath.Base(s.Path) == "kubeopera-provider-future" {
				refused = s
			}
		}
		return refused.Path != ""
	})
	if refused.Reason != plugin.ProtocolMismatch {
		t.Errorf("the new file that speaks another protocol is skipped as %+v, want %s", refused, plugin.ProtocolMismatch)
	}
	time.Sleep(300 * time.Millisecond) // six rescans
	if n := strings.Count(logs.String(), "new provider not loaded"); n != 1 {
		t.Errorf("the refused file was tried %d times in six rescans, want once until it changes", n)
	}
}

package terraform

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/zclconf/go-cty/cty"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// testModule renders a root module calling testdata/modules/<child> as
// module "m", with the given inputs, backend and outputs (module.m.<name>).
func testModule(t *testing.T, child, backend string, inputs map[string]cty.Value, outputs map[string]bool) Module {
	t.Helper()
	r := Root{Backend: backend, Modules: []ModuleCall{{Name: "m", Source: "./modules/" + child, Inputs: inputs}}}
	for _, name := range sortedKeys(outputs) {
		r.Outputs = append(r.Outputs, Output{Name: name, Expr: "module.m." + name, Sensitive: outputs[name]})
	}
	root, err := RenderRoot(r)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModule(root, os.DirFS("testdata/modules"), child)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// netModule has 6 resources (a vpc and 5 subnets) in a child module and
// outputs of each kind, one of them sensitive.
func netModule(t *testing.T, backend string) Module {
	return testModule(t, "net", backend, map[string]cty.Value{
		"name":         cty.StringVal("prod"),
		"subnet_count": cty.NumberIntVal(5),
		"zones":        cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
		"tags":         cty.MapVal(map[string]cty.Value{"team": cty.StringVal("platform")}),
	}, map[string]bool{"vpc_name": false, "subnet_names": false, "tags": true})
}

var netOutputs = map[string]string{
	"vpc_name":     `"prod"`,
	"subnet_names": `["prod-a-0","prod-b-1","prod-a-2","prod-b-3","prod-a-4"]`,
	"tags":         `{"team":"platform"}`,
}

func assertOutputs(t *testing.T, got map[string]json.RawMessage, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("outputs %v, want the keys of %v", got, want)
	}
	for k, w := range want {
		var gv, wv any
		if err := json.Unmarshal(got[k], &gv); err != nil {
			t.Errorf("output %s = %s: %v", k, got[k], err)
			continue
		}
		_ = json.Unmarshal([]byte(w), &wv)
		if !reflect.DeepEqual(gv, wv) {
			t.Errorf("output %s = %s, want %s", k, got[k], w)
		}
	}
}

func TestLocalApplyOutputsRestartAndDestroy(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	const ns, secret = "tf-local", "s3cr3t-value-never-on-disk"
	id := uniqueID("local-net")
	createNamespace(t, ns)
	dir := t.TempDir()
	logger, logs := bufferLogger()
	newLocal := func() Local {
		return Local{Dir: dir, Backend: map[string]string{"config_path": sb.KubeconfigPath, "namespace": ns}, Logger: logger}
	}
	l := newLocal()
	run := Run{ID: id, Action: Apply, Module: netModule(t, "kubernetes"), Env: map[string]string{"KUBEOPERA_TEST_TOKEN": secret}}
	if err := l.Start(ctx, run); err != nil {
		t.Fatal(err)
	}
	st := waitEnded(t, l, id, Apply, time.Minute)
	if st.State != sdk.Succeeded || st.Progress != 100 || st.ErrorClass != sdk.NoError {
		t.Fatalf("apply ended %+v, want SUCCEEDED at 100%%", st)
	}
	if want := "terraform apply: complete, 6 added, 0 changed, 0 destroyed"; st.Message != want {
		t.Errorf("message %q, want %q", st.Message, want)
	}
	if !tailContains(st.LogTail, "Apply complete! Resources: 6 added") || len(st.LogTail) > LogTailLines {
		t.Errorf("log tail (%d lines) lacks terraform's summary:\n%s", len(st.LogTail), strings.Join(st.LogTail, "\n"))
	}
	logData, err := os.ReadFile(filepath.Join(dir, id, "apply.log"))
	if err != nil {
		t.Fatal(err)
	}
	if s := summarizeLog(bytes.NewReader(logData)); s.add != 6 || s.created != 6 {
		t.Errorf("progress counters from the real log: planned %d, created %d; want 6 and 6", s.add, s.created)
	}

	out, err := l.Outputs(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	assertOutputs(t, out, netOutputs)
	// The state is in the sandbox, and the shared reader sees the same outputs.
	stateOut, err := StateOutputs(ctx, sb.Kube, ns, StateSuffix(id))
	if err != nil {
		t.Fatal(err)
	}
	assertOutputs(t, stateOut, netOutputs)
	if st, err := readState(ctx, sb.Kube, ns, StateSuffix(id)); err != nil || len(st.Resources) != 2 {
		t.Errorf("state secret holds %d resources (err %v), want 2 (module.m's vpc and subnet)", len(st.Resources), err)
	}

	// A restarted plugin: a new Local value finds the run from the ID.
	restarted := newLocal()
	if st, err := restarted.Status(ctx, id, Apply); err != nil || st.State != sdk.Succeeded {
		t.Errorf("status after restart: %+v, %v; want SUCCEEDED", st, err)
	}
	// Starting it again is a no-op: no new attempt, nothing appended.
	if err := restarted.Start(ctx, run); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, id, "apply.log")); !bytes.Equal(again, logData) {
		t.Error("a second Start of a succeeded run ran terraform again")
	}

	destroy := run
	destroy.Action = Destroy
	if err := restarted.Start(ctx, destroy); err != nil {
		t.Fatal(err)
	}
	st = waitEnded(t, restarted, id, Destroy, time.Minute)
	if st.State != sdk.Succeeded || st.Message != "terraform destroy: complete, 6 resources destroyed" {
		t.Fatalf("destroy ended %+v, want SUCCEEDED with 6 destroyed", st)
	}
	if st, err := readState(ctx, sb.Kube, ns, StateSuffix(id)); err != nil || len(st.Resources) != 0 {
		t.Errorf("state after destroy holds %d resources (err %v), want none", len(st.Resources), err)
	}
	assertNotOnDisk(t, dir, secret)
	if l := logs.String(); strings.Contains(l, secret) || !strings.Contains(l, "KUBEOPERA_TEST_TOKEN") {
		t.Errorf("logs hold a value of Run.Env, or not its names:\n%s", l)
	}
}

// assertNotOnDisk fails when any file under dir holds s.
func assertNotOnDisk(t *testing.T, dir, s string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(s)) {
			t.Errorf("%s holds a value of Run.Env", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestLocalTerraformErrorsAreReportedWithTheirClass(t *testing.T) {
	for _, tc := range []struct {
		name, child, message string
		class                sdk.ErrorClass
	}{
		{"failed precondition needs the user", "broken",
			"terraform apply failed: Resource precondition failed: The cluster name must be longer than 3 characters; set inputs.name.",
			sdk.UserFixable},
		{"undeclared reference is a broken module", "badref",
			"terraform apply failed: Reference to undeclared resource: A managed resource \"terraform_data\" \"missing\" has not been declared in module.m.",
			sdk.Terminal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			l := Local{Dir: t.TempDir(), Logger: hclog.NewNullLogger()}
			run := Run{ID: "bad", Action: Apply, Module: testModule(t, tc.child, "", nil, nil)}
			for n := 1; n <= 2; n++ {
				if err := l.Start(ctx, run); err != nil {
					t.Fatal(err)
				}
				st := waitEnded(t, l, run.ID, Apply, time.Minute)
				if st.State != sdk.Failed || st.ErrorClass != tc.class || st.Message != tc.message {
					t.Fatalf("attempt %d ended %s/%s %q, want FAILED/%s %q", n, st.State, st.ErrorClass, st.Message, tc.class, tc.message)
				}
				// A failed run is started again by Start: a new attempt.
				var at attempt
				if _, err := readJSON(filepath.Join(l.Dir, run.ID, "apply.attempt"), &at); err != nil || at.Number != n {
					t.Errorf("attempt record %+v (%v), want number %d", at, err, n)
				}
			}
			if _, err := l.Outputs(ctx, run.ID); sdk.KindOf(err) != sdk.KindFailedPrecondition {
				t.Errorf("outputs of a failed apply: %v, want a failed precondition", err)
			}
		})
	}
}

func TestLocalInterruptedRunIsReportedAndResumes(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	const ns = "tf-local"
	id := uniqueID("local-slow")
	createNamespace(t, ns)
	dir, tmp := t.TempDir(), t.TempDir()
	release, pidFile := filepath.Join(tmp, "release"), filepath.Join(tmp, "provisioner.pid")
	t.Cleanup(func() { _ = os.WriteFile(release, nil, 0o600) }) // lets an orphaned provisioner loop end
	l := Local{Dir: dir, Backend: map[string]string{"config_path": sb.KubeconfigPath, "namespace": ns}, Logger: hclog.NewNullLogger()}
	run := Run{ID: id, Action: Apply, Module: testModule(t, "slow", "kubernetes", nil, map[string]bool{"slow": false}),
		Env: map[string]string{"RELEASE_FILE": release, "PID_FILE": pidFile}}

	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, id, "apply.log"))
			t.Logf("apply.log:\n%s", log)
		}
	})
	// A plugin process starts the run and dies mid-apply (SIGKILL).
	helper := startLocalInHelper(t, l, run)
	waitFor(t, "the provisioner to run", 30*time.Second, func() (bool, error) {
		_, err := os.Stat(pidFile)
		return err == nil, nil
	})
	lease := "lock-" + StateSecretName(StateSuffix(id))
	if holder := leaseHolder(t, ns, lease); holder == "" {
		t.Fatal("terraform holds no state lock mid-apply")
	}
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	moduleDir := filepath.Join(dir, id, "module")
	waitFor(t, "terraform to die with the plugin", 10*time.Second, func() (bool, error) {
		return !terraformRunningIn(moduleDir), nil
	})
	// What the kubernetes backend does when terraform is killed: the
	// Lease keeps its holder forever (it has no duration).
	if holder := leaseHolder(t, ns, lease); holder == "" {
		t.Error("the killed terraform left no lock; the stale-lock handling is untested")
	}

	st, err := (Local{Dir: dir}).Status(ctx, id, Apply)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != sdk.Failed || st.ErrorClass != sdk.Retryable || !strings.Contains(st.Message, "interrupted") ||
		!strings.Contains(st.Message, "resumes") {
		t.Fatalf("status of the interrupted run %+v, want FAILED/RETRYABLE saying it was interrupted", st)
	}

	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.Start(ctx, run); err != nil {
		t.Fatal(err)
	}
	st = waitEnded(t, l, id, Apply, time.Minute)
	if st.State != sdk.Succeeded {
		t.Fatalf("resumed run ended %+v, want SUCCEEDED", st)
	}
	log, _ := os.ReadFile(filepath.Join(dir, id, "apply.log"))
	if !bytes.Contains(log, []byte("removing the state lock")) {
		t.Errorf("the resumed attempt did not remove the stale lock; log:\n%s", log)
	}
	if holder := leaseHolder(t, ns, lease); holder != "" {
		t.Errorf("lock still held by %s after the run", holder)
	}
	out, err := l.Outputs(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	assertOutputs(t, out, map[string]string{"slow": `"slow"`})
}

// startLocalInHelper runs l.Start(r) in a child process that then waits,
// like a plugin between calls.
func startLocalInHelper(t *testing.T, l Local, r Run) *exec.Cmd {
	t.Helper()
	l.Logger = nil // the helper logs nowhere; a logger does not marshal
	spec, err := json.Marshal(helperSpec{Local: l, Run: r})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+string(spec))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd
}

// leaseHolder is the holder of the lock Lease ns/name, "" when free.
func leaseHolder(t *testing.T, ns, name string) string {
	t.Helper()
	l, err := sb.Client.CoordinationV1().Leases(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("lease %s/%s: %v", ns, name, err)
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// terraformRunningIn reports whether a terraform process has dir as its
// working directory.
func terraformRunningIn(dir string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil || cwd != dir {
			continue
		}
		if exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); filepath.Base(exe) == "terraform" {
			return true
		}
	}
	return false
}

func TestLocalStatusOfUnknownRunIsNotFound(t *testing.T) {
	l := Local{Dir: t.TempDir()}
	for _, a := range []Action{Apply, Destroy} {
		if _, err := l.Status(context.Background(), "never-started", a); sdk.KindOf(err) != sdk.KindNotFound {
			t.Errorf("status of an unknown %s run: %v, want not found", a, err)
		}
	}
	if _, err := l.Outputs(context.Background(), "never-started"); sdk.KindOf(err) != sdk.KindNotFound {
		t.Errorf("outputs of an unknown run: %v, want not found", err)
	}
}

func TestLocalDestroyStopsARunningApply(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	release, pidFile := filepath.Join(tmp, "release"), filepath.Join(tmp, "provisioner.pid")
	t.Cleanup(func() { _ = os.WriteFile(release, nil, 0o600) })
	l := Local{Dir: t.TempDir(), Logger: hclog.NewNullLogger()} // local state in the workspace
	run := Run{ID: "local-stop", Action: Apply, Module: testModule(t, "slow", "", nil, map[string]bool{"slow": false}),
		Env: map[string]string{"RELEASE_FILE": release, "PID_FILE": pidFile}}
	if err := l.Start(ctx, run); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the provisioner to run", 30*time.Second, func() (bool, error) {
		_, err := os.Stat(pidFile)
		return err == nil, nil
	})
	if st, err := l.Status(ctx, run.ID, Apply); err != nil || st.State != sdk.Running || st.Message != "terraform apply: 3 of 4 resources created" {
		t.Errorf("status mid-apply %+v (%v), want RUNNING with 3 of 4 created", st, err)
	}
	destroy := run
	destroy.Action = Destroy
	if err := l.Start(ctx, destroy); err != nil {
		t.Fatal(err)
	}
	if err := l.Start(ctx, run); sdk.KindOf(err) != sdk.KindFailedPrecondition {
		t.Errorf("apply while the destroy runs: %v, want a failed precondition", err)
	}
	if st := waitEnded(t, l, run.ID, Destroy, time.Minute); st.State != sdk.Succeeded {
		t.Errorf("destroy ended %+v, want SUCCEEDED", st)
	}
	st, err := l.Status(ctx, run.ID, Apply)
	if err != nil || st.State != sdk.Failed || st.ErrorClass != sdk.Retryable || !strings.Contains(st.Message, "stopped") {
		t.Errorf("the stopped apply: %+v (%v), want FAILED/RETRYABLE saying it was stopped", st, err)
	}
}

func TestLocalBackendConfigPerRun(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		backend  map[string]string
		want     []string
	}{
		{"none: the module's backend block as written", "c1", nil, nil},
		{"kubernetes: secret_suffix is the ID", "c1", map[string]string{"namespace": "ns", "config_path": "/k"},
			[]string{"config_path=/k", "namespace=ns", "secret_suffix=c1"}},
		{"kubernetes, an ID the backend refuses as suffix", "prod-1", map[string]string{"namespace": "ns"},
			[]string{"namespace=ns", "secret_suffix=prod-1.state"}},
		{"placeholder: s3 key per cluster", "c1", map[string]string{"bucket": "b", "key": "clusters/{id}.tfstate"},
			[]string{"bucket=b", "key=clusters/c1.tfstate"}},
	} {
		got := Local{Backend: tc.backend}.backendConfig(tc.id)
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestStaleWindowHoldsOnlyOurEarlierLocks(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	w := staleWindow{from: t0, to: t0.Add(time.Minute)}
	me := localWho()
	for _, tc := range []struct {
		name string
		w    staleWindow
		li   lockInfo
		want bool
	}{
		{"ours, taken by the interrupted attempt", w, lockInfo{Who: me, Created: t0.Add(time.Second)}, true},
		{"ours, clock skew of under a second", w, lockInfo{Who: me, Created: t0.Add(-500 * time.Millisecond)}, true},
		{"ours, but older than every attempt here", w, lockInfo{Who: me, Created: t0.Add(-time.Hour)}, false},
		{"ours, but taken after the current attempt started", w, lockInfo{Who: me, Created: t0.Add(2 * time.Minute)}, false},
		{"another host's", w, lockInfo{Who: "root@elsewhere", Created: t0.Add(time.Second)}, false},
		{"no earlier attempt in this workspace", staleWindow{to: t0}, lockInfo{Who: me, Created: t0.Add(-time.Second)}, false},
	} {
		if got := tc.w.holds(tc.li); got != tc.want {
			t.Errorf("%s: holds = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestStateSuffixAvoidsWhatTheBackendRefuses(t *testing.T) {
	for id, want := range map[string]string{"c1": "c1", "prod-eu": "prod-eu", "prod-1": "prod-1.state",
		"a-01": "a-01.state", "x-1a": "x-1a", "9-9": "9-9.state"} {
		if got := StateSuffix(id); got != want {
			t.Errorf("StateSuffix(%q) = %q, want %q", id, got, want)
		}
	}
}

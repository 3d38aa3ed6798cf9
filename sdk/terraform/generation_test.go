package terraform

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/zclconf/go-cty/cty"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// waitGeneration polls GenerationStatus until the run has ended.
func waitGeneration(t *testing.T, e Executor, id string, g int, timeout time.Duration) Status {
	t.Helper()
	var st Status
	waitFor(t, "terraform update "+id, timeout, func() (bool, error) {
		var err error
		st, err = e.GenerationStatus(context.Background(), id, g)
		return err == nil && st.State != sdk.Running && st.State != sdk.Pending, err
	})
	return st
}

func subnets(t *testing.T, backend string, n int) Module {
	return testModule(t, "net", backend, map[string]cty.Value{
		"name": cty.StringVal("prod"), "subnet_count": cty.NumberIntVal(int64(n)),
		"zones": cty.ListVal([]cty.Value{cty.StringVal("a")}), "tags": cty.MapValEmpty(cty.String),
	}, map[string]bool{"subnet_names": false})
}

// Later applies (Run.Generation) change the state the first apply made, in
// their own workspace records, whatever keeps the state: the module
// directory (no backend) or the kubernetes backend.
func TestLocalUpdateGenerationsApplyOnTheSameState(t *testing.T) {
	for _, backend := range []string{"", "kubernetes"} {
		t.Run("backend="+backend, func(t *testing.T) {
			l := Local{Dir: t.TempDir(), Logger: hclog.NewNullLogger()}
			if backend != "" {
				needSandbox(t)
				createNamespace(t, "tf-local")
				l.Backend = map[string]string{"config_path": sb.KubeconfigPath, "namespace": "tf-local"}
			}
			ctx, id := context.Background(), uniqueID("local-gen")
			apply := func(g, n int, want string) {
				t.Helper()
				if err := l.Start(ctx, Run{ID: id, Action: Apply, Generation: g, Module: subnets(t, backend, n)}); err != nil {
					t.Fatal(err)
				}
				st := waitGeneration(t, l, id, g, time.Minute)
				if st.State != sdk.Succeeded || st.Message != want {
					t.Fatalf("generation %d ended %s %q, want SUCCEEDED %q", g, st.State, st.Message, want)
				}
				out, err := l.Outputs(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Count(string(out["subnet_names"]), "prod-a-"); got != n {
					t.Fatalf("after generation %d the state has %d subnets (%s), want %d", g, got, out["subnet_names"], n)
				}
			}
			apply(0, 3, "terraform apply: complete, 4 added, 0 changed, 0 destroyed")
			apply(1, 5, "terraform apply: complete, 2 added, 0 changed, 0 destroyed")
			apply(2, 2, "terraform apply: complete, 0 added, 0 changed, 3 destroyed")

			logPath := filepath.Join(l.Dir, id, "update-1", "apply.log")
			st, err := l.GenerationStatus(ctx, id, 1)
			if err != nil || st.Follow != logPath {
				t.Errorf("generation 1 follows %q (%v), want its own log %s", st.Follow, err, logPath)
			}
			first, _ := l.Status(ctx, id, Apply)
			if first.Message != "terraform apply: complete, 4 added, 0 changed, 0 destroyed" {
				t.Errorf("the first apply's record changed: %q", first.Message)
			}
			// Starting a finished generation again runs nothing.
			log1, _ := os.ReadFile(logPath)
			if err := l.Start(ctx, Run{ID: id, Action: Apply, Generation: 1, Module: subnets(t, backend, 5)}); err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(logPath); !bytes.Equal(again, log1) {
				t.Error("a second Start of a succeeded update ran terraform again")
			}
			if _, err := l.GenerationStatus(ctx, id, 3); !errors.Is(err, sdk.ErrNotFound) {
				t.Errorf("status of a generation never started: %v, want NotFound", err)
			}
		})
	}
}

func TestGenerationsAreForAppliesAndFitTheJobName(t *testing.T) {
	m := Module{Files: map[string][]byte{"main.tf": nil}}
	long := strings.Repeat("a", MaxIDLength)
	for _, r := range []Run{
		{ID: "c1", Action: Destroy, Generation: 1, Module: m},
		{ID: "c1", Action: Apply, Generation: -1, Module: m},
		{ID: long, Action: Apply, Generation: 100, Module: m},
	} {
		err := validateRun(r)
		if f := sdk.FieldErrors(err); len(f) != 1 || f[0].Field != "generation" {
			t.Errorf("run %s generation %d of a %d-character ID: %v, want one error naming generation", r.Action, r.Generation, len(r.ID), err)
		}
	}
	if err := validateRun(Run{ID: long, Action: Apply, Generation: 99, Module: m}); err != nil {
		t.Errorf("generation 99 of a longest ID: %v", err)
	}
	if got := GenerationJobName("c1", 2); got != "update-c1-2" {
		t.Errorf("GenerationJobName = %q", got)
	}
}

// A lock that a killed update left is cleared by the update's next
// attempt; one the first apply left is not: an update fails on it and
// names it.
func TestLocalUpdateClearsOnlyAnUpdatesStaleLock(t *testing.T) {
	needSandbox(t)
	const ns = "tf-local"
	createNamespace(t, ns)
	ctx, tmp := context.Background(), t.TempDir()
	l := Local{Dir: t.TempDir(), Backend: map[string]string{"config_path": sb.KubeconfigPath, "namespace": ns}, Logger: hclog.NewNullLogger()}
	step := func(id string, g int, release string) Run {
		return Run{ID: id, Action: Apply, Generation: g, Env: map[string]string{"RELEASE_FILE": release,
			"PID_FILE": filepath.Join(tmp, id+".pid")},
			Module: testModule(t, "step", "kubernetes", map[string]cty.Value{"step": cty.NumberIntVal(int64(g))}, map[string]bool{"step": false})}
	}
	killMidApply := func(id string, r Run) {
		t.Helper()
		_ = os.Remove(filepath.Join(tmp, id+".pid"))
		helper := startLocalInHelper(t, l, r)
		waitFor(t, "the provisioner of "+id, 30*time.Second, func() (bool, error) {
			_, err := os.Stat(filepath.Join(tmp, id+".pid"))
			return err == nil, nil
		})
		_ = helper.Process.Kill()
		_ = helper.Wait()
		waitFor(t, "terraform to die", 10*time.Second, func() (bool, error) {
			return !terraformRunningIn(filepath.Join(l.Dir, id, "module")), nil
		})
		if leaseHolder(t, ns, "lock-"+StateSecretName(StateSuffix(id))) == "" {
			t.Fatal("the killed terraform left no lock; the test proves nothing")
		}
	}
	released := filepath.Join(tmp, "released")
	if err := os.WriteFile(released, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	// An update killed mid-apply; its next attempt clears the lock.
	id := uniqueID("local-upd")
	if err := l.Start(ctx, step(id, 0, released)); err != nil {
		t.Fatal(err)
	}
	if st := waitEnded(t, l, id, Apply, time.Minute); st.State != sdk.Succeeded {
		t.Fatalf("first apply %+v", st)
	}
	killMidApply(id, step(id, 1, filepath.Join(tmp, "never")))
	if err := l.Start(ctx, step(id, 1, released)); err != nil {
		t.Fatal(err)
	}
	if st := waitGeneration(t, l, id, 1, time.Minute); st.State != sdk.Succeeded {
		t.Fatalf("the update's next attempt ended %s: %s", st.State, st.Message)
	}
	if log, _ := os.ReadFile(filepath.Join(l.Dir, id, "update-1", "apply.log")); !bytes.Contains(log, []byte("removing the state lock")) {
		t.Errorf("the update did not clear its own stale lock; log:\n%s", log)
	}

	// The first apply killed mid-way: an update leaves its lock alone.
	other := uniqueID("local-upd")
	killMidApply(other, step(other, 0, filepath.Join(tmp, "never")))
	if err := l.Start(ctx, step(other, 1, released)); err != nil {
		t.Fatal(err)
	}
	st := waitGeneration(t, l, other, 1, time.Minute)
	if st.State != sdk.Failed || !strings.Contains(st.Message, "the state is locked by") {
		t.Errorf("an update over the first apply's lock ended %s %q, want FAILED naming the lock", st.State, st.Message)
	}
	if leaseHolder(t, ns, "lock-"+StateSecretName(StateSuffix(other))) == "" {
		t.Error("the update removed the first apply's lock")
	}
}

// An update Job waits for the first apply's, is followed by its own name
// (update-<id>-<n>) and is stopped, with the cluster's other applies, when
// a destroy starts.
func TestJobUpdateWaitsForTheFirstApplyAndStopsForADestroy(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	j := Jobs{Client: sb.Kube, Namespace: jobsNS, Logger: hclog.NewNullLogger()}
	if err := j.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	setSchedulable(t, false)
	t.Cleanup(func() { setSchedulable(t, true) })
	id := uniqueID("jobs-upd")
	run := Run{ID: id, Action: Apply, Module: netModule(t, "kubernetes")}
	if err := j.Start(ctx, run); err != nil {
		t.Fatal(err)
	}
	update := run
	update.Generation = 1
	if err := j.Start(ctx, update); sdk.KindOf(err) != sdk.KindFailedPrecondition || !strings.Contains(err.Error(), "provision-"+id) {
		t.Errorf("an update while the first apply runs: %v, want a failed precondition naming its job", err)
	}
	setSchedulable(t, true)
	if st := waitEnded(t, j, id, Apply, 30*time.Second); st.State != sdk.Succeeded {
		t.Fatalf("first apply %+v", st)
	}
	if err := j.Start(ctx, update); err != nil {
		t.Fatal(err)
	}
	st := waitGeneration(t, j, id, 1, 30*time.Second)
	if st.State != sdk.Succeeded || st.Follow != "kubectl logs -f -n "+jobsNS+" job/update-"+id+"-1" {
		t.Errorf("update ended %s, follow %q", st.State, st.Follow)
	}
	setSchedulable(t, false)
	update.Generation = 2
	if err := j.Start(ctx, update); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the update's pod", 10*time.Second, func() (bool, error) {
		pods, err := sb.Client.CoreV1().Pods(jobsNS).List(ctx, metav1.ListOptions{LabelSelector: LabelGeneration + "=2," + LabelClusterID + "=" + id})
		return err == nil && len(pods.Items) > 0, err
	})
	destroy := run
	destroy.Action = Destroy
	if err := j.Start(ctx, destroy); err != nil {
		t.Fatal(err)
	}
	if _, err := j.GenerationStatus(ctx, id, 2); sdk.KindOf(err) != sdk.KindNotFound {
		t.Errorf("the running update after a destroy started: %v, want its job deleted", err)
	}
	if _, err := j.GenerationStatus(ctx, id, 1); err != nil {
		t.Errorf("the finished update was deleted too: %v", err)
	}
}

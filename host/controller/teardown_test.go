package controller

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// retryTime is the retry time in a message, which changes on every poll.
var retryTime = regexp.MustCompile(`\d\d:\d\d:\d\d UTC \(in [^)]*\)`)

// trace polls HostCluster id, logging every new phase and message, until
// done holds (or fails the test after within); done and the result get
// nil once the HostCluster is gone.
func (e *env) trace(id string, within time.Duration, done func(hc *v1.HostCluster) bool) *v1.HostCluster {
	e.t.Helper()
	deadline := time.Now().Add(within)
	last := ""
	for {
		hc := &v1.HostCluster{}
		err := e.c.Get(context.Background(), client.ObjectKey{Namespace: v1.Namespace, Name: id}, hc)
		if apierrors.IsNotFound(err) {
			hc = nil
		} else if seen := string(hc.Status.Phase) + ": " + retryTime.ReplaceAllString(hc.Status.Message, "T"); err == nil && seen != last && hc.Status.Phase != "" {
			e.t.Logf("STATUS %s %s: %s", id, hc.Status.Phase, hc.Status.Message)
			last = seen
		}
		if err == nil || hc == nil {
			if done(hc) {
				return hc
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("HostCluster %s: not there within %s; last %q (err %v)", id, within, last, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A teardown runs the plugin's Destroy in phase TearingDown; a failure is
// Failed with the plugin's message (and a Warning event) until the
// teardown is requested again, which starts a new Destroy; once it
// succeeds the HostCluster and its kubeconfig Secret are gone.
func TestTeardownDestroysThroughThePluginAndCanBeRetried(t *testing.T) {
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	e := newEnv(t, 2, target.Kubeconfig)
	e.credential("cred-1")
	if err := e.c.Create(ctx, provisioned("td1")); err != nil {
		t.Fatal(err)
	}
	e.trace("td1", 30*time.Second, func(hc *v1.HostCluster) bool { return hc != nil && hc.Status.Phase == v1.PhaseBootstrappingFlux })

	fails := filepath.Join(os.Getenv("TESTCLOUD_STATE"), "destroy-fails-td1")
	if err := os.WriteFile(fails, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e.requestTeardown("td1", "first")
	hc := e.trace("td1", 30*time.Second, func(hc *v1.HostCluster) bool {
		if hc == nil {
			t.Fatal("the HostCluster went away while its teardown was failing")
		}
		return hc.Status.Phase == v1.PhaseFailed
	})
	if !strings.Contains(hc.Status.Message, "network interface in use") ||
		!strings.Contains(hc.Status.Message, "request the teardown again") {
		t.Errorf("failed teardown: message %q", hc.Status.Message)
	}
	// The cluster was TearingDown before it failed: its phase-change event
	// says so (polling the phase every 20ms once missed a short one).
	e.waitEvent("td1", "TearingDown phase event", func(ev corev1.Event) bool { return ev.Reason == string(v1.PhaseTearingDown) })
	if hc.Annotations[v1.DestroyOperationAnnotation] != "" {
		t.Errorf("a failed Destroy's operation is still recorded: %v", hc.Annotations)
	}
	e.expectEvent("td1", corev1.EventTypeWarning, "network interface in use")

	if err := os.Remove(fails); err != nil {
		t.Fatal(err)
	}
	e.requestTeardown("td1", "second")
	e.trace("td1", 30*time.Second, func(hc *v1.HostCluster) bool { return hc == nil })
	calls, _ := os.ReadFile(filepath.Join(os.Getenv("TESTCLOUD_STATE"), "destroy-td1"))
	if n := strings.Count(string(calls), "\n"); n != 2 {
		t.Errorf("Destroy was called %d times for two requests, want 2", n)
	}
	var sec corev1.Secret
	err = e.c.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: v1.KubeconfigSecretName("td1")}, &sec)
	if !apierrors.IsNotFound(err) {
		t.Errorf("kubeconfig Secret after the teardown: %v", err)
	}
}

// A connected cluster cannot be torn down: KubeOpera did not make it.
func TestTeardownOfAConnectedClusterFails(t *testing.T) {
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	e := newEnv(t, 0, nil)
	e.connect("conn", target.Kubeconfig)
	e.waitPhase("conn", v1.PhaseBootstrappingFlux, 20*time.Second)
	e.requestTeardown("conn", "x")
	hc := e.waitPhase("conn", v1.PhaseFailed, 20*time.Second)
	if !strings.Contains(hc.Status.Message, "disconnect it instead") {
		t.Errorf("message %q", hc.Status.Message)
	}
}

func (e *env) requestTeardown(id, req string) {
	e.t.Helper()
	e.setAnnotation(id, v1.TeardownAnnotation, req)
}

// setAnnotation sets annotation key of HostCluster id to value, as the
// server's requests do.
func (e *env) setAnnotation(id, key, value string) {
	e.t.Helper()
	hc := &v1.HostCluster{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: v1.Namespace, Name: id}, hc); err != nil {
		e.t.Fatal(err)
	}
	patch := client.MergeFrom(hc.DeepCopy())
	if hc.Annotations == nil {
		hc.Annotations = map[string]string{}
	}
	hc.Annotations[key] = value
	if err := e.c.Patch(context.Background(), hc, patch); err != nil {
		e.t.Fatal(err)
	}
}

// expectEvent waits for an event of type typ on HostCluster id whose
// message contains text.
func (e *env) expectEvent(id, typ, text string) {
	e.t.Helper()
	e.waitEvent(id, fmt.Sprintf("%s event saying %q", typ, text), func(ev corev1.Event) bool {
		return ev.Type == typ && strings.Contains(ev.Message, text)
	})
}

// waitEvent waits up to 20s for an event on HostCluster id that matches.
func (e *env) waitEvent(id, what string, match func(corev1.Event) bool) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var events corev1.EventList
		if err := e.c.List(context.Background(), &events, client.InNamespace(v1.Namespace)); err != nil {
			e.t.Fatal(err)
		}
		for _, ev := range events.Items {
			if ev.InvolvedObject.Name == id && match(ev) {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no %s on %s", what, id)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

func TestConnectLiveStoppedAndBrokenClusters(t *testing.T) {
	ctx := context.Background()
	live, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Stop()
	gone, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	goneKubeconfig := gone.Kubeconfig
	gone.Stop()
	broken := strings.Replace(string(live.Kubeconfig), "certificate-authority-data: ", "certificate-authority-data: AAAA", 1)

	e := newEnv(t, 0, nil)
	e.connect("live", live.Kubeconfig)
	e.connect("gone", goneKubeconfig)
	e.connect("broken", []byte(broken))

	hc := e.waitPhase("live", v1.PhaseBootstrappingFlux, 20*time.Second)
	if !meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionAccessValidated) ||
		hc.Status.KubeconfigSecret != v1.KubeconfigSecretName("live") || !strings.Contains(hc.Status.Message, "not available") {
		t.Errorf("live: %+v", hc.Status)
	}
	if !controllerHasFinalizer(hc) {
		t.Errorf("live has no finalizer")
	}
	if hc.Status.KubernetesVersion != sandbox.KubernetesVersion || hc.Status.InventoryTime == nil {
		t.Errorf("live inventory: version %q (want %s), read at %v", hc.Status.KubernetesVersion, sandbox.KubernetesVersion, hc.Status.InventoryTime)
	}

	hc = e.waitPhase("broken", v1.PhaseFailed, 20*time.Second)
	if !strings.Contains(hc.Status.Message, "kubeconfig Secret") || !strings.Contains(hc.Status.Message, "certificate") {
		t.Errorf("broken certificate: message %q", hc.Status.Message)
	}
	// Failed stays Failed until the spec changes; then it starts over.
	var sec corev1.Secret
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: v1.KubeconfigSecretName("broken")}, &sec); err != nil {
		t.Fatal(err)
	}
	sec.Data[v1.KubeconfigSecretKey] = live.Kubeconfig
	if err := e.c.Update(ctx, &sec); err != nil {
		t.Fatal(err)
	}
	hc.Spec.Region = "fixed"
	if err := e.c.Update(ctx, hc); err != nil {
		t.Fatal(err)
	}
	e.waitPhase("broken", v1.PhaseBootstrappingFlux, 20*time.Second)

	// The stopped cluster is retried for the window (3s here), then Failed
	// with the real error.
	hc = e.waitPhase("gone", v1.PhaseValidatingAccess, 10*time.Second)
	if !strings.Contains(hc.Status.Message, "retrying") {
		t.Errorf("gone while retrying: %q", hc.Status.Message)
	}
	hc = e.waitPhase("gone", v1.PhaseFailed, 20*time.Second)
	if !strings.Contains(hc.Status.Message, "connection refused") || !strings.Contains(hc.Status.Message, "gave up after 3s") {
		t.Errorf("gone: message %q, want the connection error", hc.Status.Message)
	}
}

func controllerHasFinalizer(hc *v1.HostCluster) bool {
	for _, f := range hc.Finalizers {
		if f == Finalizer {
			return true
		}
	}
	return false
}

func provisioned(id string) *v1.HostCluster {
	return &v1.HostCluster{ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: v1.Namespace},
		Spec: v1.HostClusterSpec{Mode: v1.ModeProvisionVanilla, Provider: "test",
			Provisioning: &v1.Provisioning{Plugin: "testcloud", CredentialRef: "cred-1", Inputs: map[string]string{"nodeCount": "2"}}}}
}

// Provisioning polls the real plugin until its operation succeeds, stores
// the kubeconfig as a connect would, and survives a controller restart in
// the middle without starting a second operation.
func TestProvisionResumesAfterRestartAndStoresKubeconfig(t *testing.T) {
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	e := newEnv(t, 20, target.Kubeconfig) // 20 polls of 200ms: time to restart in the middle
	e.credential("cred-1")
	e.terraformJob("c1")
	if err := e.c.Create(ctx, provisioned("c1")); err != nil {
		t.Fatal(err)
	}
	hc := e.waitPhase("c1", v1.PhaseProvisioning, 10*time.Second)
	deadline := time.Now().Add(20 * time.Second)
	for hc.Annotations[OperationAnnotation] == "" || !strings.Contains(hc.Status.Message, "creating machines") {
		if time.Now().After(deadline) {
			t.Fatalf("never saw the operation running: %+v", hc.Status)
		}
		time.Sleep(20 * time.Millisecond)
		_ = e.c.Get(ctx, client.ObjectKeyFromObject(hc), hc)
	}
	e.halt()
	e.start() // a new controller picks the operation up from the annotation
	// and the plugin crashes too: retried, not Failed.
	if err := syscall.Kill(e.host.Plugins()[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	hc = e.waitPhase("c1", v1.PhaseBootstrappingFlux, 30*time.Second)
	if hc.Annotations[OperationAnnotation] != "op-c1" || !meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionProvisioned) {
		t.Errorf("after provisioning: annotations %v, status %+v", hc.Annotations, hc.Status)
	}
	if hc.Status.TerraformJob != "provision-c1" {
		t.Errorf("status.terraformJob = %q, want the Job that ran terraform, provision-c1", hc.Status.TerraformJob)
	}
	calls, _ := os.ReadFile(filepath.Join(os.Getenv("TESTCLOUD_STATE"), "provision-c1"))
	if n := strings.Count(string(calls), "\n"); n != 1 {
		t.Errorf("Provision was called %d times across the restart, want 1", n)
	}
	var sec corev1.Secret
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: v1.KubeconfigSecretName("c1")}, &sec); err != nil {
		t.Fatal(err)
	}
	if string(sec.Data[v1.KubeconfigSecretKey]) != string(target.Kubeconfig) || sec.Labels[v1.ClusterIDLabel] != "c1" {
		t.Errorf("stored kubeconfig differs from the provider's, or lacks its label")
	}
}

// terraformJob creates the Job sdk/terraform's Job runner would run
// cluster id's terraform apply in (the test plugin runs no terraform).
func (e *env) terraformJob(id string) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: terraform.DefaultNamespace}}
	if err := e.c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		e.t.Fatal(err)
	}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: terraform.JobName(id, terraform.Apply), Namespace: terraform.DefaultNamespace,
		Labels: map[string]string{terraform.LabelClusterID: id, terraform.LabelAction: string(terraform.Apply)}},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: terraform.ContainerName, Image: terraform.DefaultImage}}}}}}
	if err := e.c.Create(ctx, job); err != nil {
		e.t.Fatal(err)
	}
}

func TestProvisionFailureCarriesThePluginsMessageAndClass(t *testing.T) {
	e := newEnv(t, 1, []byte("unused"))
	e.credential("cred-1")
	if err := e.c.Create(context.Background(), provisioned("doomed-1")); err != nil {
		t.Fatal(err)
	}
	hc := e.waitPhase("doomed-1", v1.PhaseFailed, 20*time.Second)
	if !strings.Contains(hc.Status.Message, "quota exceeded") || !strings.Contains(hc.Status.Message, "USER_FIXABLE") {
		t.Errorf("message %q", hc.Status.Message)
	}
	if hc.Status.TerraformJob != "" {
		t.Errorf("status.terraformJob = %q, but no Job ran terraform for this cluster", hc.Status.TerraformJob)
	}
	bad := provisioned("nocred")
	bad.Spec.Provisioning.CredentialRef = "missing"
	if err := e.c.Create(context.Background(), bad); err != nil {
		t.Fatal(err)
	}
	hc = e.waitPhase("nocred", v1.PhaseFailed, 20*time.Second)
	if !strings.Contains(hc.Status.Message, "cloud credential missing") {
		t.Errorf("missing credential: %q", hc.Status.Message)
	}
}

// Disconnect removes KubeOpera's Flux objects on the target and the stored
// kubeconfig, and nothing else; an unreachable target does not block it.
func TestDisconnectCleansOnlyWhatKubeOperaMade(t *testing.T) {
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"testdata/fluxcrds"}})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	dyn := dynamic.NewForConfigOrDie(target.Config)
	if _, err := target.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: FluxNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, gvr := range fluxResources {
		for _, name := range []string{"kubeopera", "customer-own"} {
			labels := map[string]any{}
			if name == "kubeopera" {
				labels[v1.ClusterIDLabel] = "t1"
			}
			obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(),
				"kind":     map[string]string{"gitrepositories": "GitRepository", "kustomizations": "Kustomization"}[gvr.Resource],
				"metadata": map[string]any{"name": name, "labels": labels}}}
			if _, err := dyn.Resource(gvr).Namespace(FluxNamespace).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	e := newEnv(t, 0, nil)
	e.connect("t1", target.Kubeconfig)
	hc := e.waitPhase("t1", v1.PhaseBootstrappingFlux, 20*time.Second)
	if err := e.c.Delete(ctx, hc); err != nil {
		t.Fatal(err)
	}
	waitGone(t, e, "t1", 20*time.Second)
	for _, gvr := range fluxResources {
		list, err := dyn.Resource(gvr).Namespace(FluxNamespace).List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "customer-own" {
			t.Errorf("%s after disconnect: %v (err %v); want only customer-own", gvr.Resource, names(list), err)
		}
	}
	var sec corev1.Secret
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: v1.KubeconfigSecretName("t1")}, &sec); !apierrors.IsNotFound(err) {
		t.Errorf("kubeconfig Secret after disconnect: %v", err)
	}

	e.expectEvent("t1", corev1.EventTypeNormal, "removed KubeOpera's GitRepository and Kustomizations")

	// A Kustomization Flux never releases (no kustomize-controller runs
	// here): it gets deletionPolicy Orphan, the disconnect waits for it in
	// Deleting, then gives up in bounded time saying what was left.
	stuck := &unstructured.Unstructured{Object: map[string]any{"apiVersion": kustomizations.GroupVersion().String(), "kind": "Kustomization",
		"metadata": map[string]any{"name": "kubeopera-t3-apps", "labels": map[string]any{v1.ClusterIDLabel: "t3"},
			"finalizers": []any{"finalizers.fluxcd.io"}}}}
	if _, err := dyn.Resource(kustomizations).Namespace(FluxNamespace).Create(ctx, stuck, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.connect("t3", target.Kubeconfig)
	hc = e.waitPhase("t3", v1.PhaseBootstrappingFlux, 20*time.Second)
	if err := e.c.Delete(ctx, hc); err != nil {
		t.Fatal(err)
	}
	hc = e.waitPhase("t3", v1.PhaseDeleting, 20*time.Second)
	if !strings.Contains(hc.Status.Message, "waiting for Flux to release Kustomization flux-system/kubeopera-t3-apps") {
		t.Errorf("Deleting message %q", hc.Status.Message)
	}
	waitGone(t, e, "t3", 30*time.Second)
	e.expectEvent("t3", corev1.EventTypeWarning, "did not release Kustomization flux-system/kubeopera-t3-apps in time")
	left, err := dyn.Resource(kustomizations).Namespace(FluxNamespace).Get(ctx, "kubeopera-t3-apps", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p, _, _ := unstructured.NestedString(left.Object, "spec", "deletionPolicy"); p != "Orphan" || left.GetDeletionTimestamp() == nil {
		t.Errorf("the Kustomization left behind: deletionPolicy %q, deletion pending %v; want Orphan, pending", p, left.GetDeletionTimestamp() != nil)
	}

	// A target that went away: the host side is still cleaned up, in
	// bounded time, and the event says what was left there.
	e.connect("t2", target.Kubeconfig)
	hc = e.waitPhase("t2", v1.PhaseBootstrappingFlux, 20*time.Second)
	target.Stop()
	start := time.Now()
	if err := e.c.Delete(ctx, hc); err != nil {
		t.Fatal(err)
	}
	hc = e.waitPhase("t2", v1.PhaseDeleting, 20*time.Second)
	if !strings.Contains(hc.Status.Message, "cannot reach the target") {
		t.Errorf("Deleting message of an unreachable target: %q", hc.Status.Message)
	}
	waitGone(t, e, "t2", 30*time.Second)
	if took := time.Since(start); took > 25*time.Second {
		t.Errorf("disconnect of an unreachable target took %v", took)
	}
	e.expectEvent("t2", corev1.EventTypeWarning, "left on it GitRepository flux-system/kubeopera-t2")
}

func names(l *unstructured.UnstructuredList) []string {
	if l == nil {
		return nil
	}
	var out []string
	for _, i := range l.Items {
		out = append(out, i.GetName())
	}
	return out
}

func waitGone(t *testing.T, e *env, id string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		err := e.c.Get(context.Background(), client.ObjectKey{Namespace: v1.Namespace, Name: id}, &v1.HostCluster{})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("HostCluster %s still exists after %s", id, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

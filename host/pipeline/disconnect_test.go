package pipeline

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxsync"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
)

// fluxAppliedLabel is set by kustomize-controller on every object it applies.
const fluxAppliedLabel = "kustomize.toolkit.fluxcd.io/name"

// disconnectOrphans deletes a Ready HostCluster through the real controller
// and its finalizer, waits until the real kustomize-controller has finished
// with the deleted Kustomizations, and checks that everything Flux applied
// still runs on the target, unchanged: only KubeOpera's labelled Flux
// objects are gone.
func disconnectOrphans(t *testing.T, f *fixture, hc *v1.HostCluster) {
	t.Helper()
	ctx := context.Background()
	if hc.Status.NodeCount != 2 || hc.Status.ReadyNodeCount != 2 || hc.Status.KubernetesVersion == "" {
		t.Errorf("inventory at Ready: %s, %d/%d nodes ready; want the target's version and 2/2", hc.Status.KubernetesVersion,
			hc.Status.ReadyNodeCount, hc.Status.NodeCount)
	}
	before := appliedByFlux(t, f)
	if len(before) < 4 {
		t.Fatalf("Flux applied only %v before the disconnect; want the tree's Namespaces and Deployments", keys(before))
	}
	start := time.Now()
	if err := f.c.Delete(ctx, hc); err != nil {
		t.Fatal(err)
	}
	statuses := statusLog{}
	waitFor(t, 2*time.Minute, "HostCluster "+hc.Name+" gone", func() bool {
		now := &v1.HostCluster{}
		err := f.c.Get(ctx, client.ObjectKeyFromObject(hc), now)
		if err == nil {
			statuses.show(t, now)
		}
		return apierrors.IsNotFound(err)
	})
	t.Logf("DISCONNECT TIMING: Ready cluster disconnected (HostCluster gone) in %s", time.Since(start).Round(time.Millisecond))
	mine := client.MatchingLabels{v1.ClusterIDLabel: hc.Name}
	waitFor(t, 2*time.Minute, "kustomize-controller to release the Kustomizations", func() bool {
		var ks kustomizev1.KustomizationList
		var rs sourcev1.GitRepositoryList
		return f.targetC.List(ctx, &ks, client.InNamespace(fluxsync.Namespace), mine) == nil && len(ks.Items) == 0 &&
			f.targetC.List(ctx, &rs, client.InNamespace(fluxsync.Namespace), mine) == nil && len(rs.Items) == 0
	})
	after := appliedByFlux(t, f)
	for k, uid := range before {
		if after[k] != uid {
			t.Errorf("%s was applied by Flux before the disconnect and is gone or terminating after it", k)
		}
	}
	var flux appsv1.DeploymentList
	if err := f.targetC.List(ctx, &flux, client.InNamespace(fluxsync.Namespace)); err != nil || len(flux.Items) == 0 {
		t.Errorf("Flux's own Deployments after the disconnect: %d (err %v)", len(flux.Items), err)
	}
	t.Logf("after the disconnect %d objects Flux applied still run on the target: %v", len(after), keys(after))
}

// appliedByFlux lists the Namespaces, Deployments and ClusterIssuers kustomize-controller
// applied and that are not being deleted, by kind/namespace/name.
func appliedByFlux(t *testing.T, f *fixture) map[string]types.UID {
	t.Helper()
	ctx := context.Background()
	has := client.HasLabels{fluxAppliedLabel}
	out := map[string]types.UID{}
	var nss corev1.NamespaceList
	var deps appsv1.DeploymentList
	if err := f.targetC.List(ctx, &nss, has); err != nil {
		t.Fatal(err)
	}
	if err := f.targetC.List(ctx, &deps, has); err != nil {
		t.Fatal(err)
	}
	for _, n := range nss.Items {
		if n.DeletionTimestamp.IsZero() {
			out["Namespace/"+n.Name] = n.UID
		}
	}
	for _, d := range deps.Items {
		if d.DeletionTimestamp.IsZero() {
			out[fmt.Sprintf("Deployment/%s/%s", d.Namespace, d.Name)] = d.UID
		}
	}
	appliedClusterIssuers(t, f, out)
	return out
}

func keys(m map[string]types.UID) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// waitFor polls cond every 100ms until it holds, failing after within.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", within, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkSetupSecret: the first-admin call carried the cluster's setup
// secret, which the host keeps and the target's server reads from Secret
// kubeopera-setup, as the tree's server Deployment says.
func checkSetupSecret(t *testing.T, f *fixture, hc *v1.HostCluster, sent string) {
	t.Helper()
	ctx := context.Background()
	var host, target corev1.Secret
	if err := f.c.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: v1.SetupSecretName(hc.Name)}, &host); err != nil {
		t.Fatal(err)
	}
	if err := f.targetC.Get(ctx, client.ObjectKey{Namespace: gitops.NamespaceSystem, Name: gitops.SetupSecret}, &target); err != nil {
		t.Fatal(err)
	}
	want := string(host.Data[v1.SetupSecretKey])
	if len(want) < 32 || sent != want || string(target.Data[gitops.SetupSecretKey]) != want {
		t.Errorf("setup secret: sent %d chars, host %d, target equal %v; want the host's, also on the target",
			len(sent), len(want), string(target.Data[gitops.SetupSecretKey]) == want)
	}
	var server appsv1.Deployment
	if err := f.targetC.Get(ctx, client.ObjectKey{Namespace: gitops.NamespaceSystem, Name: gitops.ServerName}, &server); err != nil {
		t.Logf("server Deployment: %v", err)
		return
	}
	for _, e := range server.Spec.Template.Spec.Containers[0].Env {
		if e.Name == "KUBEOPERA_SETUP_SECRET" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil &&
			e.ValueFrom.SecretKeyRef.Name == gitops.SetupSecret && e.ValueFrom.SecretKeyRef.Key == gitops.SetupSecretKey {
			return
		}
	}
	t.Errorf("the applied server Deployment does not read KUBEOPERA_SETUP_SECRET from Secret %s", gitops.SetupSecret)
}

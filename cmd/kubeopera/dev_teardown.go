package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// `kubeopera dev` deletes its data directory when it stops, so a cluster a
// plugin provisioned would be left running with nothing that knows it. On
// Ctrl-C it therefore asks for the teardown of every provisioned cluster,
// whatever its plugin, while the controller still runs: the controller runs
// each plugin's Destroy as for a teardown a user asked for, then removes the
// HostCluster. dev stops once they are all gone, failed, or the time is up
// (a second Ctrl-C stops waiting), and names what it left behind.

// devTeardownPoll is how often dev looks whether the teardowns ended.
const devTeardownPoll = 250 * time.Millisecond

// tearDownProvisioned requests the teardown of every HostCluster with a
// provisioning plugin and waits, until ctx ends or timeout passes, for the
// controller to finish them.
func tearDownProvisioned(ctx context.Context, c client.Client, timeout time.Duration, say func(string, ...any)) error {
	var list v1.HostClusterList
	if err := c.List(ctx, &list, client.InNamespace(v1.Namespace)); err != nil {
		return fmt.Errorf("list the clusters to tear down: %w", err)
	}
	requests := map[string]string{} // cluster → its teardown request
	for i := range list.Items {
		hc := &list.Items[i]
		if hc.Spec.Provisioning == nil || !hc.DeletionTimestamp.IsZero() {
			continue
		}
		req := hc.Annotations[v1.TeardownAnnotation]
		if req == "" || hc.Annotations[v1.TeardownFailedAnnotation] == req {
			req = time.Now().UTC().Format(time.RFC3339Nano)
			patch := client.MergeFrom(hc.DeepCopy())
			if hc.Annotations == nil {
				hc.Annotations = map[string]string{}
			}
			hc.Annotations[v1.TeardownAnnotation] = req
			if err := c.Patch(ctx, hc, patch); err != nil {
				say("cannot request the teardown of %s (plugin %s): %v; destroy it by hand", hc.Name, hc.Spec.Provisioning.Plugin, err)
				continue
			}
		}
		requests[hc.Name] = req
		say("tearing down %s through plugin %s's Destroy...", hc.Name, hc.Spec.Provisioning.Plugin)
	}
	if len(requests) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	left := requests
	for len(left) > 0 {
		left = pendingTeardowns(ctx, c, left, say)
		if len(left) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("left behind after %s (a second Ctrl-C or --teardown-timeout): %s; destroy them with their plugin or in their cloud",
				timeout, strings.Join(describeLeft(context.Background(), c, left), "; "))
		case <-time.After(devTeardownPoll):
		}
	}
	return nil
}

// pendingTeardowns returns the requests whose teardown has not ended yet;
// it reports those that ended.
func pendingTeardowns(ctx context.Context, c client.Client, requests map[string]string, say func(string, ...any)) map[string]string {
	left := map[string]string{}
	for name, req := range requests {
		var hc v1.HostCluster
		err := c.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: name}, &hc)
		switch {
		case apierrors.IsNotFound(err):
			say("torn down %s", name)
		case err == nil && hc.Annotations[v1.TeardownFailedAnnotation] == req:
			say("teardown of %s failed: %s; destroy it by hand", name, hc.Status.Message)
		default:
			left[name] = req
		}
	}
	return left
}

// describeLeft names each cluster still there with its plugin and message.
func describeLeft(ctx context.Context, c client.Client, left map[string]string) []string {
	var out []string
	for name := range left {
		var hc v1.HostCluster
		if err := c.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: name}, &hc); err != nil || hc.Spec.Provisioning == nil {
			out = append(out, name)
			continue
		}
		out = append(out, fmt.Sprintf("%s (plugin %s: %s)", name, hc.Spec.Provisioning.Plugin, hc.Status.Message))
	}
	sort.Strings(out)
	return out
}

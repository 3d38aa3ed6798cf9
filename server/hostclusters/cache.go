package hostclusters

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// entry is what the watch cache keeps of one HostCluster: its name and its
// Observed state, read out of the object once per change rather than on
// every request (a 100-row page of the clusters list looks up 100 of them).
type entry struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Observed Observed
}

// DeepCopyObject makes entry a runtime.Object, which the informer's store
// expects of what it keeps.
func (e *entry) DeepCopyObject() runtime.Object {
	c := *e
	e.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// slim turns a HostCluster from the watch into the entry the cache keeps.
// Anything else (a tombstone, or an entry handed back on a resync) passes
// through as it is.
func slim(obj any) (any, error) {
	o, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	return &entry{ObjectMeta: metav1.ObjectMeta{Name: o.GetName(), Namespace: o.GetNamespace(),
		ResourceVersion: o.GetResourceVersion()}, Observed: observed(o)}, nil
}

// StartCache starts a watch of HostClusters that List and Observe then read
// from memory, so a read costs no API round trip however many clusters
// there are. It returns once the cache holds every HostCluster, and stops
// when ctx ends. Only each one's name and Observed state are kept.
func (k *Kube) StartCache(ctx context.Context) error {
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(k.dyn, 0, Namespace, nil)
	inf := f.ForResource(GVR).Informer()
	if err := inf.SetTransform(slim); err != nil {
		return err
	}
	f.Start(ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		return fmt.Errorf("HostCluster cache did not sync within 30s (is the HostCluster CRD installed?)")
	}
	k.cache = inf
	return nil
}

// List returns every HostCluster's phase: from the watch cache once
// StartCache has synced it, else with one List call.
func (k *Kube) List(ctx context.Context) (map[string]Observed, error) {
	if k.cache != nil && k.cache.HasSynced() {
		items := k.cache.GetStore().List()
		out := make(map[string]Observed, len(items))
		for _, item := range items {
			if e, ok := item.(*entry); ok {
				out[e.Name] = e.Observed
			}
		}
		return out, nil
	}
	list, err := k.dyn.Resource(GVR).Namespace(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list HostClusters: %w", err)
	}
	out := make(map[string]Observed, len(list.Items))
	for i := range list.Items {
		out[list.Items[i].GetName()] = observed(&list.Items[i])
	}
	return out, nil
}

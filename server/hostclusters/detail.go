package hostclusters

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"
)

// MaxEvents is how many of a HostCluster's newest events Detail returns.
const MaxEvents = 20

// Condition is one condition of a HostCluster's status.
type Condition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastTransitionTime time.Time `json:"lastTransitionTime"`
}

// Event is one Kubernetes event about a HostCluster, as a person reads it.
type Event struct {
	// Type is Normal or Warning.
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Count is how often the event happened (1 for a single one).
	Count int32 `json:"count"`
	// LastSeen is when it last happened.
	LastSeen time.Time `json:"lastSeen"`
}

// Detail is what the cluster page shows of a HostCluster beyond its phase.
type Detail struct {
	Conditions []Condition
	// Events are the newest first, at most MaxEvents.
	Events []Event
	// TerraformJob is status.terraformJob: the Job that ran terraform apply
	// ("" when none did).
	TerraformJob string
	// WorkerNodeCount is status.workerNodeCount: the nodes without the
	// control-plane role, which a scale moves (nil until the controller
	// counted them).
	WorkerNodeCount *int
}

// Detailer is implemented by a Registry that can read one HostCluster's
// conditions and events (the cluster page's; never a list's).
type Detailer interface {
	// Detail returns the HostCluster's detail; found is false when it has
	// no HostCluster.
	Detail(ctx context.Context, id string) (d Detail, found bool, err error)
}

// Detail reads the HostCluster (not from the watch cache, which keeps only
// the phase) and its newest events in Namespace.
func (k *Kube) Detail(ctx context.Context, id string) (Detail, bool, error) {
	o, err := k.dyn.Resource(GVR).Namespace(Namespace).Get(ctx, id, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Detail{}, false, nil
	}
	if err != nil {
		return Detail{}, false, fmt.Errorf("read HostCluster %s: %w", id, err)
	}
	d := Detail{Conditions: conditionsOf(o)}
	d.TerraformJob, _, _ = unstructured.NestedString(o.Object, "status", "terraformJob")
	if w, ok, _ := unstructured.NestedInt64(o.Object, "status", "workerNodeCount"); ok {
		d.WorkerNodeCount = ptr.To(int(w))
	}
	sel := fields.Set{"involvedObject.kind": "HostCluster", "involvedObject.name": id}.AsSelector().String()
	list, err := k.core.CoreV1().Events(Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return d, true, fmt.Errorf("list events of HostCluster %s: %w", id, err)
	}
	d.Events = newestEvents(list.Items, string(o.GetUID()), MaxEvents)
	return d, true, nil
}

// conditionsOf reads status.conditions of an unstructured HostCluster.
func conditionsOf(o *unstructured.Unstructured) []Condition {
	raw, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	out := make([]Condition, 0, len(raw))
	for _, item := range raw {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		c := Condition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message")}
		c.LastTransitionTime, _ = time.Parse(time.RFC3339, str("lastTransitionTime"))
		out = append(out, c)
	}
	return out
}

// newestEvents turns events into Events, newest first, at most limit. An
// event of an earlier HostCluster of the same name (another UID: the
// cluster was disconnected and its ID reused) is left out.
func newestEvents(items []corev1.Event, uid string, limit int) []Event {
	out := make([]Event, 0, min(len(items), limit))
	for _, e := range items {
		if uid != "" && e.InvolvedObject.UID != "" && string(e.InvolvedObject.UID) != uid {
			continue
		}
		count := e.Count
		if e.Series != nil { // events.k8s.io writers count in the series
			count = e.Series.Count
		}
		out = append(out, Event{Type: e.Type, Reason: e.Reason, Message: e.Message, Count: max(count, 1), LastSeen: lastSeen(e)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastSeen.After(out[j].LastSeen) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// lastSeen is when an event last happened, whichever API wrote it.
func lastSeen(e corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

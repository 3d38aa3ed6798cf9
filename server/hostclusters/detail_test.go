package hostclusters

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// newestEvents keeps the newest events of this HostCluster, newest first,
// whichever API wrote their time, and drops those of an earlier one of the
// same name.
func TestNewestEventsOrdersByLastSeenAndKeepsThisHostClusters(t *testing.T) {
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
	ev := func(reason string, uid types.UID, set func(*corev1.Event)) corev1.Event {
		e := corev1.Event{Reason: reason, InvolvedObject: corev1.ObjectReference{UID: uid}}
		set(&e)
		return e
	}
	items := []corev1.Event{
		ev("legacy", "u1", func(e *corev1.Event) { e.LastTimestamp = metav1.NewTime(at(1)); e.Count = 3 }),
		ev("series", "u1", func(e *corev1.Event) {
			e.EventTime = metav1.NewMicroTime(at(0))
			e.Series = &corev1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(at(5))}
		}),
		ev("eventTime", "u1", func(e *corev1.Event) { e.EventTime = metav1.NewMicroTime(at(3)) }),
		ev("created", "", func(e *corev1.Event) { e.CreationTimestamp = metav1.NewTime(at(2)) }),
		ev("earlier-hostcluster", "u0", func(e *corev1.Event) { e.LastTimestamp = metav1.NewTime(at(9)) }),
	}
	got := newestEvents(items, "u1", 3)
	var reasons []string
	for _, e := range got {
		reasons = append(reasons, e.Reason)
	}
	if fmt.Sprint(reasons) != "[series eventTime created]" {
		t.Errorf("newest 3 = %v, want [series eventTime created]", reasons)
	}
	if got[0].LastSeen != at(5) || got[0].Count != 2 {
		t.Errorf("series event = %+v; want last seen at its series' last observation, counted by the series (2)", got[0])
	}
	all := newestEvents(items, "u1", 10)
	if len(all) != 4 || all[3].Reason != "legacy" || all[3].Count != 3 {
		t.Errorf("all = %+v; want 4 events, the legacy one last with its count 3", all)
	}
}

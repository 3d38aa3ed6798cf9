package awsprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// shape is what one terraform apply of a running cluster sets.
type shape struct {
	Nodes   int    `json:"nodes"`
	Version string `json:"version"` // the control plane's minor
	// NodeVersion is the EKS node group's minor; it trails Version
	// between the two applies of an upgrade.
	NodeVersion string `json:"nodeVersion"`
}

// step is one terraform apply of a change, run as its own generation.
type step struct {
	Generation int   `json:"generation"`
	Shape      shape `json:"shape"`
	Done       bool  `json:"done,omitempty"`
}

// change is one Update: its operation and its applies, in order.
type change struct {
	Operation string    `json:"operation"`
	Started   time.Time `json:"started"`
	Steps     []step    `json:"steps"`
}

// current is the first step not done, -1 when all are.
func (c *change) current() int {
	for i, s := range c.Steps {
		if !s.Done {
			return i
		}
	}
	return -1
}

// day2Record is everything a cluster's day-2 changes need between calls:
// the inputs it was provisioned with (no secrets: credentials come with
// each call), the shape its last successful apply left, the last
// generation used and the latest change.
type day2Record struct {
	Inputs     map[string]string `json:"inputs"`
	Applied    shape             `json:"applied"`
	Generation int               `json:"generation"`
	Change     *change           `json:"change,omitempty"`
}

// day2Log keeps each cluster's day2Record in the ConfigMap day2-<cluster
// ID> beside its terraform state, so a restarted plugin carries on with a
// change's next apply. Writes are optimistic: a concurrent writer makes
// save fail with a conflict, and the call is retried.
type day2Log struct {
	client    *terraform.Kube
	namespace string
}

const day2RecordKey = "record"

func day2LogName(clusterID string) string { return "day2-" + clusterID }

// load returns the cluster's record and its ConfigMap; both nil when
// there is none yet.
func (l day2Log) load(ctx context.Context, clusterID string) (*day2Record, *corev1.ConfigMap, error) {
	name := day2LogName(clusterID)
	cm, err := l.client.CoreV1().ConfigMaps(l.namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the day-2 record of cluster %s from ConfigMap %s/%s: %w", clusterID, l.namespace, name, err)
	}
	var rec day2Record
	if err := json.Unmarshal([]byte(cm.Data[day2RecordKey]), &rec); err != nil {
		return nil, nil, sdk.FailedPrecondition("the day-2 record in ConfigMap %s/%s is not readable (%v): "+
			"delete it to start over from the cluster's inputs", l.namespace, name, err)
	}
	return &rec, cm, nil
}

// save writes rec over cm (nil: create it).
func (l day2Log) save(ctx context.Context, clusterID string, rec *day2Record, cm *corev1.ConfigMap) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	name := day2LogName(clusterID)
	if cm == nil {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: l.namespace,
			Labels: map[string]string{terraform.LabelClusterID: clusterID}}}
		cm.Data = map[string]string{day2RecordKey: string(data)}
		_, err = l.client.CoreV1().ConfigMaps(l.namespace).Create(ctx, cm, metav1.CreateOptions{})
	} else {
		cm = cm.DeepCopy()
		cm.Data = map[string]string{day2RecordKey: string(data)}
		_, err = l.client.CoreV1().ConfigMaps(l.namespace).Update(ctx, cm, metav1.UpdateOptions{})
	}
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		return sdk.Unavailable("the day-2 record of cluster %s changed under this call; call again", clusterID)
	}
	if err != nil {
		return fmt.Errorf("record the day-2 change of cluster %s in ConfigMap %s/%s: %w", clusterID, l.namespace, name, err)
	}
	return nil
}

// day2Log is the record keeper on the management cluster the state is on.
func (p *Provider) day2Log() (day2Log, error) {
	s, err := p.sweepLogs.get()
	if err != nil {
		return day2Log{}, err
	}
	return day2Log(s), nil
}

package awsprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// sweepRecord is what a destroy's passes after terraform did so far. A
// pass that deleted a load balancer is followed by another in a later
// Status call, so the record is kept between them, outside the plugin.
type sweepRecord struct {
	// Operation is the destroy's operation ID: a record another
	// operation left is not this one's.
	Operation string `json:"operation"`
	// RelayDone says the relay's SSM parameters were deleted, RelayDeleted
	// how many: they are deleted (and reported) once.
	RelayDone    bool `json:"relayDone,omitempty"`
	RelayDeleted int  `json:"relayDeleted,omitempty"`
	// Deleted names what every pass deleted, e.g. "volume vol-0abc".
	Deleted []string `json:"deleted,omitempty"`
	// Inputs are the destroy's inputs (no secrets: credentials are not
	// inputs), so a destroy that failed on a DependencyViolation can be
	// started again from Status; Again counts those restarts.
	Inputs map[string]string `json:"inputs,omitempty"`
	Again  int               `json:"again,omitempty"`
}

// sweepLog keeps a destroy's sweepRecord in the ConfigMap
// sweep-<cluster ID> of the terraform namespace on the management
// cluster, beside the terraform state, so a plugin restarted between
// passes still reports everything; the last pass deletes it. It needs
// configmaps get/create/update/delete there, as the Job executor does.
type sweepLog struct {
	client    *terraform.Kube
	namespace string
}

const sweepRecordKey = "record"

func sweepLogName(clusterID string) string { return "sweep-" + clusterID }

// load returns the operation's record, empty when there is none yet.
func (l sweepLog) load(ctx context.Context, op operation) (sweepRecord, *corev1.ConfigMap, error) {
	name := sweepLogName(op.ClusterID)
	cm, err := l.client.CoreV1().ConfigMaps(l.namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return sweepRecord{Operation: op.String()}, nil, nil
	}
	if err != nil {
		return sweepRecord{}, nil, fmt.Errorf("read what the destroy deleted so far from ConfigMap %s/%s: %w", l.namespace, name, err)
	}
	var rec sweepRecord
	if err := json.Unmarshal([]byte(cm.Data[sweepRecordKey]), &rec); err != nil || rec.Operation != op.String() {
		// Unreadable, or an older destroy's that never finished: start over.
		return sweepRecord{Operation: op.String()}, cm, nil
	}
	return rec, cm, nil
}

// save writes rec over cm (nil: there is none yet); a concurrent writer
// makes it fail with a conflict, and the pass is retried.
func (l sweepLog) save(ctx context.Context, op operation, rec sweepRecord, cm *corev1.ConfigMap) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	name := sweepLogName(op.ClusterID)
	if cm == nil {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: l.namespace}}
		cm.Data = map[string]string{sweepRecordKey: string(data)}
		_, err = l.client.CoreV1().ConfigMaps(l.namespace).Create(ctx, cm, metav1.CreateOptions{})
	} else {
		cm = cm.DeepCopy()
		cm.Data = map[string]string{sweepRecordKey: string(data)}
		_, err = l.client.CoreV1().ConfigMaps(l.namespace).Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("record what the destroy deleted in ConfigMap %s/%s: %w", l.namespace, name, err)
	}
	return nil
}

// forget deletes the operation's record once its final message is made.
func (l sweepLog) forget(ctx context.Context, op operation) error {
	name := sweepLogName(op.ClusterID)
	err := l.client.CoreV1().ConfigMaps(l.namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete ConfigMap %s/%s: %w", l.namespace, name, err)
	}
	return nil
}

// sweepLogs makes the sweepLog on first use, from the same management
// cluster the terraform state is on; a failure is not kept.
type sweepLogs struct {
	mu  sync.Mutex
	log *sweepLog
}

func (s *sweepLogs) get() (sweepLog, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		cfg, _, err := stateCluster()
		if err != nil {
			return sweepLog{}, sdk.FailedPrecondition("%s (%v)", stateNotFound, err)
		}
		kube, err := terraform.NewKube(cfg)
		if err != nil {
			return sweepLog{}, fmt.Errorf("management cluster client: %w", err)
		}
		s.log = &sweepLog{client: kube, namespace: terraform.DefaultNamespace}
	}
	return *s.log, nil
}

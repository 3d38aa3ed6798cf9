package hostclusters

import (
	"time"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// HandOverGrace is how long a cluster row may wait for its HostCluster:
// the server writes the row (with its audit row, in one transaction)
// first and creates the HostCluster next, so a row younger than this
// without one is a hand-over in progress, and an older one was left by a
// crash or a failure between the two writes.
const HandOverGrace = 30 * time.Second

// Orphaned decides, for a row whose HostCluster the management cluster
// itself says is not there (Registry.Exists, never a cache), whether the
// row goes: a self-registered row never has one and stays; a row whose
// cached status shows the controller reported on it had its HostCluster,
// which is gone (a disconnect or teardown finished); any other row goes
// once HandOverGrace has passed since it was made. The server's read path
// and the controller's repair sweep both decide with this one rule.
func Orphaned(selfRegistered bool, cachedStatus string, created, now time.Time) bool {
	if selfRegistered {
		return false
	}
	reported := cachedStatus != "" && cachedStatus != string(v1alpha1.PhasePending)
	return reported || now.Sub(created) > HandOverGrace
}

// Package repair keeps the clusters table and the HostClusters in step
// after crashes: the server writes a cluster's row (with its audit row)
// and then its HostCluster, with no transaction across the two stores, so
// a crash between them, or a failure to undo the first, can leave one
// without the other. The controller runs Sweeper (leader-elected) at
// start-up and periodically: a row whose HostCluster is gone goes
// (hostclusters.Orphaned, the rule the server's read path uses too), and a
// HostCluster without a row gets one rebuilt from its spec. Each repair is
// audited in the same transaction as the row it writes.
package repair

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Actor is the audit actor of a repair.
const Actor = "kubeopera-controller"

// Sweeper repairs rows and HostClusters.
type Sweeper struct {
	Store *store.Store
	// Reader reads the management cluster itself (a manager's
	// GetAPIReader): a repair never acts on a cache's view.
	Reader client.Reader
	Log    *slog.Logger
	// Every is the period between sweeps (default one minute).
	Every time.Duration
	// Now is the clock (tests set it).
	Now func() time.Time
}

// Result counts what one sweep did.
type Result struct {
	RowsRemoved, RowsRebuilt int
	// Held: rows left because the management cluster holds no
	// HostCluster at all (see Sweep).
	Held int
}

// Start sweeps at once and then every s.Every until ctx ends; it is a
// controller-runtime Runnable that runs only on the elected leader.
func (s *Sweeper) Start(ctx context.Context) error {
	every := s.Every
	if every <= 0 {
		every = time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if r, err := s.Sweep(ctx); err != nil {
			s.Log.Warn("repair sweep failed; retried at the next one", "error", err)
		} else if r != (Result{}) {
			s.Log.Info("repair sweep", "rows_removed", r.RowsRemoved, "rows_rebuilt", r.RowsRebuilt, "rows_held", r.Held)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// NeedLeaderElection: one controller replica repairs.
func (s *Sweeper) NeedLeaderElection() bool { return true }

// Sweep runs one repair. HostClusters are listed before rows, so a
// cluster created in between has its row (made first) and no HostCluster
// in this sweep's view, which the hand-over grace protects. A management
// cluster with no HostCluster at all while rows the controller reported
// on have none either is taken as the wrong cluster (a server or
// controller pointed elsewhere), not as every cluster gone: those rows
// are held and the sweep says so.
func (s *Sweeper) Sweep(ctx context.Context) (Result, error) {
	var res Result
	var list v1.HostClusterList
	if err := s.Reader.List(ctx, &list, client.InNamespace(v1.Namespace)); err != nil {
		return res, fmt.Errorf("list HostClusters: %w", err)
	}
	rows, err := s.Store.ListClusters(ctx)
	if err != nil {
		return res, err
	}
	hcs := make(map[string]*v1.HostCluster, len(list.Items))
	for i := range list.Items {
		hcs[list.Items[i].Name] = &list.Items[i]
	}
	have := make(map[string]bool, len(rows))
	var gone []store.Cluster
	now := s.now()
	for _, r := range rows {
		have[r.ID] = true
		if _, ok := hcs[r.ID]; !ok && hostclusters.Orphaned(r.Source == store.SourceSelfRegistered, r.Status, r.CreatedAt, now) {
			gone = append(gone, r)
		}
	}
	for _, r := range gone {
		if len(list.Items) == 0 && r.Status != "" && r.Status != string(v1.PhasePending) && len(gone) > 1 {
			res.Held++
			continue
		}
		removed, err := s.removeRow(ctx, r)
		if err != nil {
			return res, err
		}
		if removed {
			res.RowsRemoved++
		}
	}
	if res.Held > 0 {
		s.Log.Error("the management cluster holds no HostCluster, but the database lists clusters KubeOpera handed over: "+
			"is the controller pointed at the right management cluster? Those rows are kept", "rows", res.Held)
	}
	for _, hc := range list.Items {
		if have[hc.Name] || !hc.DeletionTimestamp.IsZero() {
			continue
		}
		if err := s.rebuildRow(ctx, &hc); err != nil {
			return res, err
		}
		res.RowsRebuilt++
	}
	return res, nil
}

func (s *Sweeper) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// removeRow removes row r after the management cluster confirms, read
// live, that its HostCluster is not there.
func (s *Sweeper) removeRow(ctx context.Context, r store.Cluster) (bool, error) {
	var hc v1.HostCluster
	err := s.Reader.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: r.ID}, &hc)
	if err == nil {
		return false, nil
	}
	if !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("read HostCluster %s: %w", r.ID, err)
	}
	route := "repair: HostCluster gone, row removed"
	if r.Status == "" || r.Status == string(v1.PhasePending) {
		route = "repair: HostCluster never created, row removed"
	}
	ev := &store.AuditEvent{Actor: Actor, Method: "DELETE", Route: route, Status: 200}
	if err := s.Store.DeleteCluster(ctx, r.ID, ev); err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	s.Log.Info("removed a cluster row without its HostCluster", "cluster", r.ID, "name", r.Name, "reason", route)
	return true, nil
}

// rebuildRow makes the row of a HostCluster that has none, from its spec,
// under the same ID (so two sweeps cannot make two rows). A name another
// row took meanwhile gets the ID's first characters appended.
func (s *Sweeper) rebuildRow(ctx context.Context, hc *v1.HostCluster) error {
	row := rowOf(hc)
	ev := &store.AuditEvent{Actor: Actor, Method: "POST", Route: "repair: row rebuilt from its HostCluster", Status: 201}
	err := s.Store.CreateCluster(ctx, row, ev)
	var conflict *store.ConflictError
	for range 2 { // a name taken meanwhile, then a credential deleted meanwhile
		if !errors.As(err, &conflict) {
			break
		}
		switch conflict.Field {
		case "name":
			row.Name = suffixed(row.Name, hc.Name)
		case "credential_id":
			row.CredentialID = nil
		default:
			return fmt.Errorf("rebuild the row of HostCluster %s: %w", hc.Name, err)
		}
		err = s.Store.CreateCluster(ctx, row, &store.AuditEvent{Actor: Actor, Method: "POST",
			Route: "repair: row rebuilt from its HostCluster", Status: 201})
	}
	if err != nil {
		return fmt.Errorf("rebuild the row of HostCluster %s: %w", hc.Name, err)
	}
	s.Log.Info("rebuilt the row of a HostCluster without one", "cluster", hc.Name, "name", row.Name)
	return nil
}

// rowOf is the row a HostCluster's spec describes, with the status the
// controller last reported.
func rowOf(hc *v1.HostCluster) *store.Cluster {
	name := hc.Spec.DisplayName
	if name == "" {
		name = hc.Name
	}
	row := &store.Cluster{ID: hc.Name, Name: name, Provider: hc.Spec.Provider, Region: hc.Spec.Region,
		Source: sourceOf(hc.Spec.Mode), Status: string(v1.DerivePhase(hc)), Message: hc.Status.Message,
		KubernetesVersion: hc.Status.KubernetesVersion, NodeCount: int(hc.Status.NodeCount), ReadyNodeCount: int(hc.Status.ReadyNodeCount)}
	if p := hc.Spec.Provisioning; p != nil {
		row.Plugin = p.Plugin
		if p.CredentialRef != "" {
			ref := p.CredentialRef
			row.CredentialID = &ref
		}
	}
	return row
}

// sourceOf is the row's source for a HostCluster mode.
func sourceOf(m v1.Mode) store.Source {
	switch m {
	case v1.ModeConnectExisting:
		return store.SourceConnectedExisting
	case v1.ModeProvisionVanilla:
		return store.SourceProvisionedVanilla
	case v1.ModeProvisionEKS:
		return store.SourceProvisionedEKS
	}
	return store.SourceProvisioned
}

// suffixed appends the first characters of id to name, within the
// column's width.
func suffixed(name, id string) string {
	tail := "-" + id
	if len(tail) > 9 {
		tail = tail[:9]
	}
	if len(name)+len(tail) > store.MaxClusterNameLength {
		name = name[:store.MaxClusterNameLength-len(tail)]
	}
	return name + tail
}

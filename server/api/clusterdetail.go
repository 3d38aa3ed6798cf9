package api

import (
	"context"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"
	"k8s.io/client-go/kubernetes"

	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/inspect"
	"github.com/ochestra-tech/kubeopera/server/kubeconfig"
	"github.com/ochestra-tech/kubeopera/server/livecache"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// liveReadTimeout bounds each live read of the cluster page (the target's
// nodes, the HostCluster's conditions and events), so a cluster that does
// not answer costs a page load seconds, not the client's patience.
const liveReadTimeout = 4 * time.Second

// clusterDetail is GET /clusters/{id}: the cluster as listed, plus what
// its page shows. Conditions and events come from the management cluster,
// nodes from the cluster itself; each says why when it could not be read.
type clusterDetail struct {
	clusterView
	// Conditions are the HostCluster's status conditions (empty without
	// a HostCluster, e.g. for a self-registered cluster).
	Conditions []hostclusters.Condition `json:"conditions"`
	// Events are the newest events about the HostCluster, newest first.
	Events []hostclusters.Event `json:"events"`
	// DetailError says why conditions and events are missing.
	DetailError string `json:"detailError,omitempty"`
	// TerraformJob names the Job in kubeopera-provisioning whose logs show
	// the cluster's terraform apply; empty when terraform did not run as a
	// Job (it ran in the plugin's process, or the cluster was not
	// provisioned).
	TerraformJob string `json:"terraformJob,omitempty"`
	// WorkerNodeCount is how many of node_count are workers (no
	// control-plane role): what a scale's node count moves. Absent until
	// the cluster's controller counted them, and for a self-registered
	// cluster.
	WorkerNodeCount *int `json:"workerNodeCount,omitempty"`
	// DisconnectNotice says what a disconnect would do now, in the words of
	// DELETE /clusters/{id}.
	DisconnectNotice string `json:"disconnectNotice"`
}

// detailCaches share the cluster page's live reads between viewers and
// polls for livecache.DefaultTTL, per cluster.
type detailCaches struct {
	nodes  *livecache.Cache[[]inspect.NodeInfo]
	detail *livecache.Cache[hostclusters.Detail]
}

func newDetailCaches() detailCaches {
	return detailCaches{nodes: livecache.New[[]inspect.NodeInfo](livecache.DefaultTTL, liveReadTimeout),
		detail: livecache.New[hostclusters.Detail](livecache.DefaultTTL, liveReadTimeout)}
}

// describe builds the page's view of row, reading nodes and the
// HostCluster's detail concurrently.
func (s *server) describe(c *fiber.Ctx, row store.Cluster) clusterDetail {
	d := clusterDetail{clusterView: view(row), Conditions: []hostclusters.Condition{}, Events: []hostclusters.Event{},
		DisconnectNotice: disconnectNotice(&row)}
	d.Role = roleHere(c)
	a := actionsFor(&row, d.Role, s.pluginInfos([]store.Cluster{row})[row.Plugin])
	d.Actions = &a
	ctx, done := c.UserContext(), make(chan struct{})
	go func() {
		defer close(done)
		d.Nodes, d.NodesError = s.liveNodes(ctx, row)
	}()
	s.hostClusterDetail(c, row, &d)
	<-done
	return d
}

// hostClusterDetail fills d's conditions, events and Terraform Job from
// the cluster's HostCluster, when there is a management cluster to ask.
func (s *server) hostClusterDetail(c *fiber.Ctx, row store.Cluster, d *clusterDetail) {
	reader, ok := s.registry.(hostclusters.Detailer)
	if !ok || row.Source == store.SourceSelfRegistered {
		return
	}
	hd, err := s.details.detail.Get(c.UserContext(), row.ID, func(ctx context.Context) (hostclusters.Detail, error) {
		hd, _, err := reader.Detail(ctx, row.ID)
		return hd, err
	})
	if err != nil {
		s.log.Warn("cluster page: HostCluster detail not read", "cluster_id", row.ID, "request_id", requestID(c), "reason", err)
		d.DetailError = "could not read the cluster's conditions and events from the management cluster: " + federation.Reason(err)
	}
	if hd.Conditions != nil {
		d.Conditions = hd.Conditions
	}
	if hd.Events != nil {
		d.Events = hd.Events
	}
	d.TerraformJob, d.WorkerNodeCount = hd.TerraformJob, hd.WorkerNodeCount
}

// liveNodes reads row's nodes through the server's own access (the host)
// or the stored kubeconfig, or says why it cannot.
func (s *server) liveNodes(ctx context.Context, row store.Cluster) ([]inspect.NodeInfo, string) {
	nodes, err := s.details.nodes.Get(ctx, row.ID, func(ctx context.Context) ([]inspect.NodeInfo, error) {
		return s.readNodes(ctx, row)
	})
	var none *noNodesYet
	switch {
	case err == nil:
		return nodes, ""
	case errors.As(err, &none):
		return nil, none.why
	}
	s.log.Warn("cluster page: nodes not read", "cluster_id", row.ID, "reason", err)
	return nil, "could not read the nodes: " + federation.Reason(err)
}

// noNodesYet is a cluster KubeOpera has no way to reach (yet).
type noNodesYet struct{ why string }

func (e *noNodesYet) Error() string { return e.why }

func (s *server) readNodes(ctx context.Context, row store.Cluster) ([]inspect.NodeInfo, error) {
	if row.Source == store.SourceSelfRegistered && s.inspector != nil {
		return s.inspector.Nodes(ctx)
	}
	if s.fleet == nil {
		return nil, &noNodesYet{"nodes cannot be read: the server has no management cluster to read the cluster's kubeconfig from"}
	}
	t, ok, err := s.fleet.Target(ctx, row)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &noNodesYet{"nodes are shown once KubeOpera holds a kubeconfig for this cluster (it is " + row.Status + ")"}
	}
	cs, err := kubernetes.NewForConfig(kubeconfig.Tune(t.Config))
	if err != nil {
		return nil, &noNodesYet{"the stored kubeconfig cannot be used (" + err.Error() + "): connect the cluster again with a valid one"}
	}
	return inspect.Inspector{Client: cs}.Nodes(ctx)
}

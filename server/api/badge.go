package api

import (
	"strings"

	"github.com/ochestra-tech/kubeopera/server/health"
	"github.com/ochestra-tech/kubeopera/server/inspect"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Badges colour a cluster's status in the dashboard, in the same colours
// as health scores.
const (
	BadgeGreen = health.BadgeGreen
	BadgeAmber = health.BadgeAmber
	BadgeRed   = health.BadgeRed
	BadgeGray  = "gray"
)

// ClusterBadges lists every badge a cluster can have: the document's enum.
var ClusterBadges = []string{BadgeGreen, BadgeAmber, BadgeRed, BadgeGray}

var badges = map[string]string{
	"pending": BadgeAmber, "provisioning": BadgeAmber, "validatingaccess": BadgeAmber,
	"bootstrappingflux": BadgeAmber, "generatinggitopstree": BadgeAmber, "installingkubeopera": BadgeAmber,
	"deleting": BadgeAmber, "tearingdown": BadgeAmber, "updating": BadgeAmber,
	"ready": BadgeGreen, "running": BadgeGreen, "active": BadgeGreen,
	"failed": BadgeRed, "error": BadgeRed,
}

// badge maps a status or synced phase, in any case, to its badge; a status
// it does not know is gray rather than a guess.
func badge(status string) string {
	if b, ok := badges[strings.ToLower(status)]; ok {
		return b
	}
	return BadgeGray
}

// clusterView is a cluster as the API serves it.
type clusterView struct {
	store.Cluster
	Badge string `json:"badge"`
	// Role is the caller's role on the cluster (its team's, or the
	// caller's global one): the dashboard offers only what it allows; the
	// server still decides each request.
	Role Role `json:"role,omitempty"`
	// Actions are what the caller may ask of the cluster now, each with
	// the reason when it may not.
	Actions *clusterActions `json:"actions,omitempty"`
	// Nodes is the per-node breakdown of a self-registered cluster, read
	// live; NodesError says why it is missing when it could not be read.
	Nodes      []inspect.NodeInfo `json:"nodes,omitempty"`
	NodesError string             `json:"nodesError,omitempty"`
}

func view(c store.Cluster) clusterView { return clusterView{Cluster: c, Badge: badge(c.Status)} }

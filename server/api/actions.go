package api

import (
	"fmt"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// action is whether the caller may ask one thing of a cluster now, and
// why not when it may not: the dashboard and the CLI offer what is
// allowed and show the reason for what is not, instead of deciding again.
type action struct {
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
}

// clusterActions are the cluster's actions for the caller, decided by the
// same rules the handlers check: the role the route needs (routes.go), and
// the phase rules of the management cluster's requests
// (hostclusters.*Refusal) and of disconnect (disconnectEffect). The
// plugin may still refuse a scale or upgrade its Info does not declare
// (409 with its reason).
type clusterActions struct {
	Scale           action `json:"scale"`
	Upgrade         action `json:"upgrade"`
	Retry           action `json:"retry"`
	Teardown        action `json:"teardown"`
	Disconnect      action `json:"disconnect"`
	Kubeconfig      action `json:"kubeconfig"`
	AdminKubeconfig action `json:"adminKubeconfig"`
}

// The roles the routes of the actions need, read from the route table at
// start (in init: the table refers, through its handlers, to actionsFor).
var roleToUpdate, roleToRetry, roleToTeardown, roleToDisconnect, roleToKubeconfig Role

func init() {
	for _, r := range routes {
		switch routeKey(r) {
		case "PATCH /api/v1/clusters/:id":
			roleToUpdate = r.role
		case "POST /api/v1/clusters/:id/retry":
			roleToRetry = r.role
		case "POST /api/v1/clusters/:id/teardown":
			roleToTeardown = r.role
		case "DELETE /api/v1/clusters/:id":
			roleToDisconnect = r.role
		case "GET /api/v1/clusters/:id/kubeconfig":
			roleToKubeconfig = r.role
		}
	}
}

// actionsFor is what a caller of role may ask of row now.
func actionsFor(row *store.Cluster, role Role) clusterActions {
	phase := v1alpha1.Phase(row.Status)
	first := func(reasons ...string) action {
		for _, r := range reasons {
			if r != "" {
				return action{Reason: r}
			}
		}
		return action{Allowed: true}
	}
	needs := func(need Role) string {
		if role.AtLeast(need) {
			return ""
		}
		return fmt.Sprintf("needs the %s role on team %q; you have %s", need, row.Team, role)
	}
	refusal := func(err *hostclusters.RefusedError) string {
		if err == nil {
			return ""
		}
		return err.Reason
	}
	changeable := ""
	if !provisioned(row) || row.Plugin == "" {
		changeable = "KubeOpera did not provision it: change it where it was made"
	}
	update := first(needs(roleToUpdate), changeable, refusal(hostclusters.UpdateRefusal(phase)))
	selfRegistered := ""
	if row.Source == store.SourceSelfRegistered {
		selfRegistered = "it registered itself: fix it where it runs"
	}
	destroyable := ""
	if !provisioned(row) {
		destroyable = "KubeOpera did not provision it: disconnect it instead"
	}
	disconnect := ""
	if _, refused := disconnectEffect(row); refused != nil && row.Source != store.SourceSelfRegistered {
		disconnect = refused.Detail
	}
	return clusterActions{
		Scale:           update,
		Upgrade:         update,
		Retry:           first(needs(roleToRetry), selfRegistered, refusal(hostclusters.RetryRefusal(phase))),
		Teardown:        first(needs(roleToTeardown), destroyable, refusal(hostclusters.TeardownRefusal(phase))),
		Disconnect:      first(needs(roleToDisconnect), disconnect),
		Kubeconfig:      first(needs(roleToKubeconfig)),
		AdminKubeconfig: first(needs(PlatformAdmin)),
	}
}

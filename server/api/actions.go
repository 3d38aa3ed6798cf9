package api

import (
	"fmt"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// action is whether the caller may ask one thing of a cluster now, and
// why not when it may not: the dashboard and the CLI offer what is
// allowed and show the reason for what is not, instead of deciding again.
type action struct {
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
	// Offered is false when the caller can never ask it of this cluster
	// (their role, how the cluster came, what its plugin can do): the
	// dashboard leaves it out rather than showing it disabled.
	Offered bool `json:"offered"`
}

// scaleAction is the scale action with the node counts the plugin takes.
type scaleAction struct {
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
	Offered bool   `json:"offered"`
	// Min and Max bound the node count (Max 0: no upper bound).
	Min int `json:"min"`
	Max int `json:"max,omitempty"`
}

// upgradeAction is the upgrade action with the versions the plugin offers
// from the cluster's version.
type upgradeAction struct {
	Allowed bool     `json:"allowed"`
	Reason  string   `json:"reason,omitempty"`
	Offered bool     `json:"offered"`
	Targets []string `json:"targets"`
}

// clusterActions are the cluster's actions for the caller, decided by the
// same rules the handlers check: the role the route needs (routes.go), and
// the phase rules of the management cluster's requests
// (hostclusters.*Refusal) and of disconnect (disconnectEffect). The
// plugin may still refuse a scale or upgrade its Info does not declare
// (409 with its reason).
type clusterActions struct {
	Scale           scaleAction   `json:"scale"`
	Upgrade         upgradeAction `json:"upgrade"`
	Retry           action        `json:"retry"`
	Teardown        action        `json:"teardown"`
	Disconnect      action        `json:"disconnect"`
	Kubeconfig      action        `json:"kubeconfig"`
	AdminKubeconfig action        `json:"adminKubeconfig"`
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

// actionsFor is what a caller of role may ask of row now; plug is what the
// cluster's plugin declares (plug.info nil: unknown, with why).
func actionsFor(row *store.Cluster, role Role, plug pluginInfo) clusterActions {
	phase := v1alpha1.Phase(row.Status)
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
	now := refusal(hostclusters.UpdateRefusal(phase))
	scale := decide([]string{needs(roleToUpdate), changeable, plug.lacks(sdk.CapScale, "scale a cluster")}, []string{plug.missing, now})
	lo, hi := 1, 0
	if plug.info != nil {
		lo, hi = sdk.NodeCountBounds(*plug.info)
	}
	upgrade := decide([]string{needs(roleToUpdate), changeable, plug.lacks(sdk.CapUpgrade, "upgrade a cluster")}, []string{plug.missing, now})
	var targets []string
	if plug.info != nil {
		targets = sdk.UpgradeTargets(*plug.info, row.KubernetesVersion)
		if upgrade.Allowed && len(targets) == 0 {
			upgrade = action{Offered: true, Reason: noUpgradeFrom(row)}
		}
	}
	return clusterActions{
		Scale:   scaleAction{Allowed: scale.Allowed, Reason: scale.Reason, Offered: scale.Offered, Min: lo, Max: hi},
		Upgrade: upgradeAction{Allowed: upgrade.Allowed, Reason: upgrade.Reason, Offered: upgrade.Offered, Targets: append([]string{}, targets...)},
		Retry:   decide([]string{needs(roleToRetry), selfRegistered}, []string{refusal(hostclusters.RetryRefusal(phase))}),
		Teardown: decide([]string{needs(roleToTeardown), destroyable, plug.lacks(sdk.CapDestroy, "destroy a cluster")},
			[]string{refusal(hostclusters.TeardownRefusal(phase))}),
		Disconnect:      decide([]string{needs(roleToDisconnect)}, []string{disconnect}),
		Kubeconfig:      decide([]string{needs(roleToKubeconfig)}, nil),
		AdminKubeconfig: decide([]string{needs(PlatformAdmin)}, nil),
	}
}

// decide is an action from the reasons it is never offered (never) and
// the reasons it is not allowed now (notNow); the first reason given is
// the one said.
func decide(never, notNow []string) action {
	for _, r := range never {
		if r != "" {
			return action{Reason: r}
		}
	}
	for _, r := range notNow {
		if r != "" {
			return action{Offered: true, Reason: r}
		}
	}
	return action{Allowed: true, Offered: true}
}

func noUpgradeFrom(row *store.Cluster) string {
	if row.KubernetesVersion == "" {
		return "its Kubernetes version is not known yet"
	}
	return fmt.Sprintf("its provider plugin offers no upgrade from %s", row.KubernetesVersion)
}

package awsprovider

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// operation is what an operation ID carries, so Status and Kubeconfig find
// everything again after a plugin restart: the terraform run (action and
// cluster) and what reading the result needs (region, control planes).
// Encoded as "<action>:<clusterID>?region=..&controlPlanes=..&workers=..";
// an update ("update:<clusterID>?...") adds gen, the generation of its
// first terraform run, and version, the minor it moves to.
type operation struct {
	Action        terraform.Action
	ClusterID     string
	Region        string
	ControlPlanes int
	// Workers is the number of workers the apply asked for; settle waits
	// until that many joined. 0 for operations recorded before it was.
	Workers int
	// Relay is the SSM path a destroy deletes once terraform is done
	// (vanilla: the nodes wrote those parameters, Terraform never knew
	// them); empty when there is none.
	Relay string
	// Generation is an update's first terraform run (Run.Generation);
	// Version the Kubernetes minor it leaves the cluster at.
	Generation int
	Version    string
	// Started is when an update started, from its record (not in the
	// ID), or when a retry of a failed bootstrap replaced nodes (in the
	// ID, as since): settle's deadline counts from it.
	Started time.Time
}

// actionUpdate is an update's action in its ID: terraform runs it as
// apply generations (see day2.go).
const actionUpdate = terraform.Action("update")

func (o operation) String() string {
	q := url.Values{"region": {o.Region}}
	if o.ControlPlanes > 0 {
		q.Set("controlPlanes", strconv.Itoa(o.ControlPlanes))
	}
	if o.Workers > 0 {
		q.Set("workers", strconv.Itoa(o.Workers))
	}
	if o.Relay != "" {
		q.Set("relay", o.Relay)
	}
	if o.Generation > 0 {
		q.Set("gen", strconv.Itoa(o.Generation))
		q.Set("version", o.Version)
	}
	if o.Action == terraform.Apply && !o.Started.IsZero() {
		q.Set("since", o.Started.UTC().Format(time.RFC3339))
	}
	return string(o.Action) + ":" + o.ClusterID + "?" + q.Encode()
}

func parseOperation(id string) (operation, error) {
	head, query, _ := strings.Cut(id, "?")
	action, cluster, ok := strings.Cut(head, ":")
	q, err := url.ParseQuery(query)
	if !ok || err != nil || cluster == "" || !slices.Contains([]terraform.Action{terraform.Apply, terraform.Destroy, actionUpdate}, terraform.Action(action)) {
		return operation{}, sdk.NotFound("operation %q is not one of this plugin's (want <apply|destroy|update>:<cluster>?region=...)", id)
	}
	o := operation{Action: terraform.Action(action), ClusterID: cluster, Region: q.Get("region"), Relay: q.Get("relay")}
	if o.Relay != "" && !strings.HasPrefix(o.Relay, "/kubeopera/"+cluster+"/") {
		return operation{}, sdk.NotFound("operation %q: relay path %q is not the cluster's", id, o.Relay)
	}
	if n := q.Get("controlPlanes"); n != "" {
		if o.ControlPlanes, err = strconv.Atoi(n); err != nil {
			return operation{}, sdk.NotFound("operation %q: bad controlPlanes %q", id, n)
		}
	}
	if n := q.Get("workers"); n != "" {
		if o.Workers, err = strconv.Atoi(n); err != nil || o.Workers < 0 {
			return operation{}, sdk.NotFound("operation %q: bad workers %q", id, n)
		}
	}
	if since := q.Get("since"); since != "" && o.Action == terraform.Apply {
		if o.Started, err = time.Parse(time.RFC3339, since); err != nil {
			return operation{}, sdk.NotFound("operation %q: bad since %q", id, since)
		}
	}
	if o.Action == actionUpdate {
		if o.Generation, err = strconv.Atoi(q.Get("gen")); err != nil || o.Generation < 1 {
			return operation{}, sdk.NotFound("operation %q: bad gen %q", id, q.Get("gen"))
		}
		o.Version = q.Get("version")
	}
	return o, nil
}

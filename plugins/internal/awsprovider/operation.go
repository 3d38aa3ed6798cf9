package awsprovider

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// operation is what an operation ID carries, so Status and Kubeconfig find
// everything again after a plugin restart: the terraform run (action and
// cluster) and what reading the result needs (region, control planes).
// Encoded as "<action>:<clusterID>?region=..&controlPlanes=..&workers=..".
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
}

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
	return string(o.Action) + ":" + o.ClusterID + "?" + q.Encode()
}

func parseOperation(id string) (operation, error) {
	head, query, _ := strings.Cut(id, "?")
	action, cluster, ok := strings.Cut(head, ":")
	q, err := url.ParseQuery(query)
	if !ok || err != nil || cluster == "" || (action != string(terraform.Apply) && action != string(terraform.Destroy)) {
		return operation{}, sdk.NotFound("operation %q is not one of this plugin's (want <apply|destroy>:<cluster>?region=...)", id)
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
	return o, nil
}

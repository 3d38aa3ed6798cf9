package awsprovider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// Estimate prices a cluster of req.Inputs from the price table, without
// calling AWS: its machines, their root volumes, the NAT gateway and its
// address, and the EKS control plane or (vanilla) the API's load
// balancers and the kubeconfig's KMS key. A region or an instance type the
// table has no price for is an InvalidInput error naming the field (inputs.<name>).
func (p *Provider) Estimate(_ context.Context, req sdk.EstimateRequest) (sdk.Estimate, error) {
	in := sdk.WithDefaults(Schema(p.opts), req.Inputs)
	var bad []sdk.FieldError
	add := func(field, format string, args ...any) {
		bad = append(bad, sdk.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	region, ok := prices.Regions[in["region"]]
	if !ok {
		add("inputs.region", "the price table (%s) has no prices for %q; it has %s", prices.Date, in["region"],
			strings.Join(slices.Sorted(maps.Keys(prices.Regions)), ", "))
	}
	instance, ok := region.Instances[in["instanceType"]]
	if !ok && region.Instances != nil {
		add("inputs.instanceType", "the price table has no price for %q in %s; it has %s", in["instanceType"], in["region"],
			strings.Join(slices.Sorted(maps.Keys(region.Instances)), ", "))
	}
	nodes, err := strconv.Atoi(in["nodeCount"])
	if err != nil || nodes < p.opts.MinNodes || nodes > maxNodes {
		add("inputs.nodeCount", "must be a number from %d to %d, got %q", p.opts.MinNodes, maxNodes, in["nodeCount"])
	}
	cps := 0
	if p.opts.ControlPlane {
		if cps, err = strconv.Atoi(in["controlPlaneCount"]); err != nil || cps < 1 || cps > maxControlPlanes {
			add("inputs.controlPlaneCount", "must be a number from 1 to %d, got %q", maxControlPlanes, in["controlPlaneCount"])
		}
	}
	if err := sdk.InvalidInput(bad...); err != nil {
		return sdk.Estimate{}, err
	}
	est := sdk.Estimate{Currency: "USD", PriceDate: prices.Date, Source: prices.Source,
		Excludes: []string{"data through the NAT gateway and load balancer capacity units",
			"the Gateway's load balancer once the GitOps tree installs it", "volumes and load balancers workloads ask for"}}
	if p.opts.ControlPlane {
		est.Lines = vanillaLines(region, in["instanceType"], instance, cps, nodes)
	} else {
		est.Lines = eksLines(region, in["instanceType"], instance, nodes)
	}
	return est.Total(), nil
}

// eksLines: the control plane, the node group's instances and disks, one
// NAT gateway with its address.
func eksLines(r regionPrices, instanceType string, instance float64, nodes int) []sdk.CostLine {
	return []sdk.CostLine{
		sdk.Line("EKS control plane", "cluster", 1, r.EKSControlPlane),
		sdk.Line(instanceType+" nodes", "instance", float64(nodes), instance),
		sdk.Line("NAT gateway and its public address", "gateway", 1, r.NATGateway+r.PublicIPv4),
		sdk.Line(fmt.Sprintf("gp3 root volumes (%d GiB a node)", eksRootGiB), "GiB", float64(nodes*eksRootGiB), r.GP3PerGiB),
	}
}

// vanillaLines: control planes and workers on one instance type, the
// public API load balancer with an address in each of its 2 zones (and
// the internal one with more than one control plane), one NAT gateway
// with its address, root volumes and the kubeconfig's KMS key.
func vanillaLines(r regionPrices, instanceType string, instance float64, cps, nodes int) []sdk.CostLine {
	lbs := 1
	if cps > 1 {
		lbs = 2
	}
	return []sdk.CostLine{
		sdk.Line(instanceType+" control planes", "instance", float64(cps), instance),
		sdk.Line(instanceType+" workers", "instance", float64(nodes), instance),
		sdk.Line("API Network Load Balancers (public; internal with more than one control plane)", "load balancer", float64(lbs), r.LoadBalancer),
		sdk.Line("the public API load balancer's addresses (one a zone)", "IPv4 address", 2, r.PublicIPv4),
		sdk.Line("NAT gateway and its public address", "gateway", 1, r.NATGateway+r.PublicIPv4),
		sdk.Line(fmt.Sprintf("gp3 root volumes (%d GiB a node)", vanillaRootGiB), "GiB", float64((cps+nodes)*vanillaRootGiB), r.GP3PerGiB),
		sdk.Line("KMS key of the kubeconfig parameter", "key", 1, r.KMSKey),
	}
}

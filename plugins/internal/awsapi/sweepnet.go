package awsapi

import (
	"context"
	"encoding/xml"
	"net/url"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// What else keeps a cluster's VPC from being deleted, none of it made by
// Terraform: Classic Load Balancers the cloud controller makes for a
// LoadBalancer Service without the NLB annotation (tagged as the
// cluster's, in its subnets), network interfaces left "available" in the
// VPC (by a load balancer, the VPC CNI or an endpoint), and VPC endpoints
// someone added (the modules make none). Each holds a subnet, so
// terraform destroy fails on a DependencyViolation.

// classicCall sends one Classic Load Balancing call (Version 2012-06-01,
// the same host as v2); its endpoint variable is the SDK's
// AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING.
func classicCall(ctx context.Context, cfg aws.Config, form url.Values) ([]byte, error) {
	form.Set("Version", "2012-06-01")
	return queryCall(ctx, cfg, "elasticloadbalancing", endpointOf(cfg, "ELASTIC_LOAD_BALANCING", "elasticloadbalancing"), form)
}

// clusterVPCs are the IDs of the VPCs named clusterName (the vpc module's
// Name tag); none once terraform deleted it.
func clusterVPCs(ctx context.Context, cfg aws.Config, clusterName string) ([]string, error) {
	var ids []string
	form := url.Values{"Action": {"DescribeVpcs"}, "Filter.1.Name": {"tag:Name"}, "Filter.1.Value.1": {clusterName}}
	err := ec2Pages(ctx, cfg, form, "find the cluster's VPC", func(data []byte) (string, error) {
		var page struct {
			IDs  []string `xml:"vpcSet>item>vpcId"`
			Next string   `xml:"nextToken"`
		}
		err := xml.Unmarshal(data, &page)
		ids = append(ids, page.IDs...)
		return page.Next, err
	})
	return ids, err
}

// classicLB is a Classic Load Balancer by name and VPC.
type classicLB struct {
	Name string `xml:"LoadBalancerName"`
	VPC  string `xml:"VPCId"`
}

// listClassic lists every Classic Load Balancer of the region, page by page.
func listClassic(ctx context.Context, cfg aws.Config) ([]classicLB, error) {
	var all []classicLB
	for marker := ""; ; {
		form := url.Values{"Action": {"DescribeLoadBalancers"}}
		if marker != "" {
			form.Set("Marker", marker)
		}
		data, err := classicCall(ctx, cfg, form)
		if err != nil {
			return nil, classifyRaw(err, "list Classic Load Balancers with elasticloadbalancing:DescribeLoadBalancers")
		}
		var page struct {
			LBs  []classicLB `xml:"DescribeLoadBalancersResult>LoadBalancerDescriptions>member"`
			Next string      `xml:"DescribeLoadBalancersResult>NextMarker"`
		}
		if err := xml.Unmarshal(data, &page); err != nil {
			return nil, unreadable("elasticloadbalancing:DescribeLoadBalancers", err)
		}
		all = append(all, page.LBs...)
		if marker = page.Next; marker == "" {
			return all, nil
		}
	}
}

// sweepClassicLoadBalancers deletes the Classic Load Balancers tagged as
// the cluster's or in one of its VPCs.
func sweepClassicLoadBalancers(ctx context.Context, cfg aws.Config, clusterName string, vpcs []string, res *SweepResult) error {
	all, err := listClassic(ctx, cfg)
	if err != nil {
		return err
	}
	owned := map[string]bool{}
	for _, l := range all {
		owned[l.Name] = contains(vpcs, l.VPC)
	}
	for i := 0; i < len(all); i += 20 {
		form := url.Values{"Action": {"DescribeTags"}}
		for j, l := range all[i:min(i+20, len(all))] {
			form.Set("LoadBalancerNames.member."+strconv.Itoa(j+1), l.Name)
		}
		data, err := classicCall(ctx, cfg, form)
		if err != nil {
			return classifyRaw(err, "read Classic Load Balancer tags with elasticloadbalancing:DescribeTags")
		}
		var out struct {
			Items []struct {
				Name string `xml:"LoadBalancerName"`
				Tags []struct {
					Key   string `xml:"Key"`
					Value string `xml:"Value"`
				} `xml:"Tags>member"`
			} `xml:"DescribeTagsResult>TagDescriptions>member"`
		}
		if err := xml.Unmarshal(data, &out); err != nil {
			return unreadable("elasticloadbalancing:DescribeTags", err)
		}
		for _, d := range out.Items {
			for _, t := range d.Tags {
				owned[d.Name] = owned[d.Name] || (t.Key == ClusterTag(clusterName) && t.Value == "owned")
			}
		}
	}
	for _, l := range all {
		if !owned[l.Name] {
			continue
		}
		if _, err := classicCall(ctx, cfg, url.Values{"Action": {"DeleteLoadBalancer"}, "LoadBalancerName": {l.Name}}); err != nil {
			return classifyRaw(err, "delete Classic Load Balancer "+l.Name+" with elasticloadbalancing:DeleteLoadBalancer")
		}
		res.Deleted = append(res.Deleted, "classic load balancer "+l.Name)
		res.LoadBalancersDeleted = true
	}
	return nil
}

// sweepInterfaces deletes the network interfaces left available in the
// VPCs (in use ones belong to something still running).
func sweepInterfaces(ctx context.Context, cfg aws.Config, vpcs []string, res *SweepResult) error {
	for _, vpc := range vpcs {
		var ids []string
		form := url.Values{"Action": {"DescribeNetworkInterfaces"}, "Filter.1.Name": {"vpc-id"}, "Filter.1.Value.1": {vpc},
			"Filter.2.Name": {"status"}, "Filter.2.Value.1": {"available"}}
		err := ec2Pages(ctx, cfg, form, "list the network interfaces left in "+vpc, func(data []byte) (string, error) {
			var page struct {
				IDs  []string `xml:"networkInterfaceSet>item>networkInterfaceId"`
				Next string   `xml:"nextToken"`
			}
			err := xml.Unmarshal(data, &page)
			ids = append(ids, page.IDs...)
			return page.Next, err
		})
		if err != nil {
			return err
		}
		for _, id := range ids {
			_, err := ec2Call(ctx, cfg, url.Values{"Action": {"DeleteNetworkInterface"}, "NetworkInterfaceId": {id}})
			if code, ok := refusedToDelete(err); ok {
				res.Left = append(res.Left, Leftover{Kind: "network interface", ID: id, Reason: code})
				continue
			}
			if err != nil {
				return classifyRaw(err, "delete network interface "+id+" with ec2:DeleteNetworkInterface")
			}
			res.Deleted = append(res.Deleted, "network interface "+id)
		}
	}
	return nil
}

// sweepEndpoints deletes the VPC endpoints in the VPCs: the modules make
// none, so each was added outside Terraform.
func sweepEndpoints(ctx context.Context, cfg aws.Config, vpcs []string, res *SweepResult) error {
	for _, vpc := range vpcs {
		var ids []string
		form := url.Values{"Action": {"DescribeVpcEndpoints"}, "Filter.1.Name": {"vpc-id"}, "Filter.1.Value.1": {vpc}}
		err := ec2Pages(ctx, cfg, form, "list the VPC endpoints of "+vpc, func(data []byte) (string, error) {
			var page struct {
				IDs  []string `xml:"vpcEndpointSet>item>vpcEndpointId"`
				Next string   `xml:"nextToken"`
			}
			err := xml.Unmarshal(data, &page)
			ids = append(ids, page.IDs...)
			return page.Next, err
		})
		if err != nil || len(ids) == 0 {
			return err
		}
		form = url.Values{"Action": {"DeleteVpcEndpoints"}}
		for i, id := range ids {
			form.Set("VpcEndpointId."+strconv.Itoa(i+1), id)
		}
		data, err := ec2Call(ctx, cfg, form)
		if err != nil {
			return classifyRaw(err, "delete the VPC endpoints of "+vpc+" with ec2:DeleteVpcEndpoints")
		}
		var out struct {
			Failed []string `xml:"unsuccessful>item>resourceId"`
		}
		if err := xml.Unmarshal(data, &out); err != nil {
			return unreadable("ec2:DeleteVpcEndpoints", err)
		}
		for _, id := range ids {
			if contains(out.Failed, id) {
				res.Left = append(res.Left, Leftover{Kind: "VPC endpoint", ID: id, Reason: "DeleteVpcEndpoints refused it"})
				continue
			}
			res.Deleted = append(res.Deleted, "VPC endpoint "+id)
		}
	}
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

package awsapi

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go"
)

// A cluster's own controllers create AWS resources Terraform never knew:
// the EBS CSI driver volumes, the cloud controller (or EKS) load
// balancers, their target groups and security groups. They carry the
// tag kubernetes.io/cluster/<cluster name> = owned (the EBS driver only
// when started with --k8s-tag-cluster-id; it refuses the key as an extra
// volume tag, so the EKS add-on, whose schema takes no such option, tags
// VolumeTag = <cluster name> instead. Its own ebs.csi.aws.com/cluster =
// true is on every cluster's volumes and says nothing of which). Sweep
// deletes what is left of them after terraform destroy.

// Leftover is a resource Sweep found and could not delete.
type Leftover struct {
	// Kind: volume, load balancer, target group, security group.
	Kind, ID string
	// Reason is why, e.g. "in-use, attached to i-0abc".
	Reason string
}

func (l Leftover) String() string { return fmt.Sprintf("%s %s (%s)", l.Kind, l.ID, l.Reason) }

// SweepResult is what one Sweep did.
type SweepResult struct {
	// Deleted names every deleted resource, e.g. "volume vol-0abc".
	Deleted []string
	// Left are the resources that could not be deleted.
	Left []Leftover
	// LoadBalancersDeleted says a load balancer went this time: its
	// target groups and security groups may only now be deletable, so a
	// caller sweeps again before it reports what was left.
	LoadBalancersDeleted bool
}

// VolumeTag is the tag key the EBS CSI add-on puts on the volumes it
// makes (its extraVolumeTags), the cluster's name as value: the add-on's
// schema takes no k8sTagClusterId, and the driver refuses extra tags
// starting with kubernetes.io.
const VolumeTag = "kubeopera.io/cluster"

// ClusterTag is the tag key of the resources a cluster's controllers
// create for it; the value is "owned".
func ClusterTag(clusterName string) string { return "kubernetes.io/cluster/" + clusterName }

// Sweep deletes the resources tagged as owned by clusterName: available
// EBS volumes, then what holds the cluster's VPC (SweepBlockers), then
// security groups (each can hold the next). A resource AWS will not
// delete (a volume in use, a group still referenced) is in Left; a call
// that failed otherwise (refused credential, AWS unreachable) ends the
// sweep with an error, and the caller sweeps again.
func Sweep(ctx context.Context, cfg aws.Config, clusterName string) (SweepResult, error) {
	var res SweepResult
	if err := sweepVolumes(ctx, cfg, clusterName, &res); err != nil {
		return res, err
	}
	if err := sweepBlockers(ctx, cfg, clusterName, &res); err != nil {
		return res, err
	}
	return res, sweepSecurityGroups(ctx, cfg, clusterName, &res)
}

// SweepBlockers deletes what keeps terraform from deleting the cluster's
// subnets and VPC, none of which Terraform made: ELBv2 load balancers and
// their target groups and Classic Load Balancers the cluster's
// controllers made (tagged as the cluster's, or for Classic ones in its
// VPC), VPC endpoints in its VPC, and network interfaces left available
// there. It runs before terraform destroy (while the cluster runs, its
// volumes are attached and its security groups in use) and again after a
// destroy that failed on a DependencyViolation.
func SweepBlockers(ctx context.Context, cfg aws.Config, clusterName string) (SweepResult, error) {
	var res SweepResult
	err := sweepBlockers(ctx, cfg, clusterName, &res)
	return res, err
}

func sweepBlockers(ctx context.Context, cfg aws.Config, clusterName string, res *SweepResult) error {
	if err := sweepLoadBalancers(ctx, cfg, clusterName, res); err != nil {
		return err
	}
	vpcs, err := clusterVPCs(ctx, cfg, clusterName)
	if err != nil {
		return err
	}
	if err := sweepClassicLoadBalancers(ctx, cfg, clusterName, vpcs, res); err != nil {
		return err
	}
	if err := sweepEndpoints(ctx, cfg, vpcs, res); err != nil {
		return err
	}
	return sweepInterfaces(ctx, cfg, vpcs, res)
}

// ec2Call sends one EC2 query-protocol call and returns the answer.
func ec2Call(ctx context.Context, cfg aws.Config, form url.Values) ([]byte, error) {
	form.Set("Version", "2016-11-15")
	return queryCall(ctx, cfg, "ec2", endpoint(cfg, "ec2"), form)
}

// elbCall sends one Elastic Load Balancing v2 call; its endpoint variable
// is the SDK's AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2.
func elbCall(ctx context.Context, cfg aws.Config, form url.Values) ([]byte, error) {
	form.Set("Version", "2015-12-01")
	return queryCall(ctx, cfg, "elasticloadbalancing", endpointOf(cfg, "ELASTIC_LOAD_BALANCING_V2", "elasticloadbalancing"), form)
}

func queryCall(ctx context.Context, cfg aws.Config, service, base string, form url.Values) ([]byte, error) {
	body := []byte(form.Encode())
	req, err := newRequest(ctx, http.MethodPost, base+"/", body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	return send(ctx, cfg, service, req, body, queryError)
}

// unreadable is the error of an answer that does not parse.
func unreadable(action string, err error) error {
	return fmt.Errorf("%s: unreadable answer: %w", action, err)
}

// refusedToDelete returns AWS's code when it refused to delete a resource
// in its current state (as opposed to refusing the caller).
func refusedToDelete(err error) (string, bool) {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return "", false
	}
	switch ae.ErrorCode() {
	case "VolumeInUse", "DependencyViolation", "ResourceInUse", "IncorrectState", "OperationNotPermitted":
		return ae.ErrorCode(), true
	}
	return "", false
}

func sweepVolumes(ctx context.Context, cfg aws.Config, clusterName string, res *SweepResult) error {
	type volume struct {
		ID       string   `xml:"volumeId"`
		Status   string   `xml:"status"`
		Instance []string `xml:"attachmentSet>item>instanceId"`
	}
	seen := map[string]bool{}
	var vols []volume
	// The in-tree plugin's and the EBS driver's spellings of the same
	// ownership, and the EKS add-on's extra tag; DescribeVolumes ANDs
	// filters, so one call each.
	for key, value := range map[string]string{ClusterTag(clusterName): "owned", "KubernetesCluster": clusterName, VolumeTag: clusterName} {
		form := url.Values{"Action": {"DescribeVolumes"}, "Filter.1.Name": {"tag:" + key}, "Filter.1.Value.1": {value}}
		err := ec2Pages(ctx, cfg, form, "list the cluster's EBS volumes", func(data []byte) (string, error) {
			var page struct {
				Volumes []volume `xml:"volumeSet>item"`
				Next    string   `xml:"nextToken"`
			}
			err := xml.Unmarshal(data, &page)
			for _, v := range page.Volumes {
				if !seen[v.ID] {
					seen[v.ID] = true
					vols = append(vols, v)
				}
			}
			return page.Next, err
		})
		if err != nil {
			return err
		}
	}
	for _, v := range vols {
		if v.Status != "available" {
			reason := v.Status
			if len(v.Instance) > 0 {
				reason += ", attached to " + strings.Join(v.Instance, ", ")
			}
			res.Left = append(res.Left, Leftover{Kind: "volume", ID: v.ID, Reason: reason})
			continue
		}
		_, err := ec2Call(ctx, cfg, url.Values{"Action": {"DeleteVolume"}, "VolumeId": {v.ID}})
		if code, ok := refusedToDelete(err); ok {
			res.Left = append(res.Left, Leftover{Kind: "volume", ID: v.ID, Reason: code})
			continue
		}
		if err != nil {
			return classifyRaw(err, "delete EBS volume "+v.ID+" with ec2:DeleteVolume")
		}
		res.Deleted = append(res.Deleted, "volume "+v.ID)
	}
	return nil
}

// ec2Pages sends an EC2 Describe call page by page: with MaxResults (AWS
// answers everything without it, but warns such calls are throttled and
// time out on long lists; 1000 is its most), then again with each
// NextToken until none comes. page reads one answer and returns its
// nextToken. All pages are read before anything is deleted, so deleting
// does not shift what a token points at.
func ec2Pages(ctx context.Context, cfg aws.Config, form url.Values, doing string, page func([]byte) (string, error)) error {
	action := form.Get("Action")
	form.Set("MaxResults", "1000")
	for {
		data, err := ec2Call(ctx, cfg, form)
		if err != nil {
			return classifyRaw(err, doing+" with ec2:"+action)
		}
		next, err := page(data)
		if err != nil {
			return unreadable("ec2:"+action, err)
		}
		if next == "" {
			return nil
		}
		form.Set("NextToken", next)
	}
}

// elbResource is a load balancer or target group by ARN and name.
type elbResource struct{ ARN, Name string }

func sweepLoadBalancers(ctx context.Context, cfg aws.Config, clusterName string, res *SweepResult) error {
	// Load balancers first: a target group is in use until its load
	// balancer is gone.
	for _, k := range []elbKind{
		{name: "load balancer", noun: "LoadBalancer", plural: "LoadBalancers"},
		{name: "target group", noun: "TargetGroup", plural: "TargetGroups"},
	} {
		all, err := listELB(ctx, cfg, k)
		if err != nil {
			return err
		}
		owned, err := ownedELB(ctx, cfg, clusterName, all)
		if err != nil {
			return err
		}
		for _, r := range owned {
			_, err := elbCall(ctx, cfg, url.Values{"Action": {"Delete" + k.noun}, k.noun + "Arn": {r.ARN}})
			if err != nil {
				code, refused := refusedToDelete(err)
				if !refused {
					return classifyRaw(err, "delete "+k.name+" "+r.Name+" with elasticloadbalancing:Delete"+k.noun)
				}
				res.Left = append(res.Left, Leftover{Kind: k.name, ID: r.Name, Reason: code})
				continue
			}
			res.Deleted = append(res.Deleted, k.name+" "+r.Name)
			res.LoadBalancersDeleted = res.LoadBalancersDeleted || k.noun == "LoadBalancer"
		}
	}
	return nil
}

// elbKind names one ELBv2 resource type as its API spells it.
type elbKind struct{ name, noun, plural string }

// listELB lists every resource of kind k in the region, page by page (a
// Describe answers at most 400 and a NextMarker). An answer holds only its
// own kind, so the other kind's fields stay empty.
func listELB(ctx context.Context, cfg aws.Config, k elbKind) ([]elbResource, error) {
	type member struct {
		LBArn  string `xml:"LoadBalancerArn"`
		LBName string `xml:"LoadBalancerName"`
		TGArn  string `xml:"TargetGroupArn"`
		TGName string `xml:"TargetGroupName"`
	}
	var all []elbResource
	for marker := ""; ; {
		form := url.Values{"Action": {"Describe" + k.plural}}
		if marker != "" {
			form.Set("Marker", marker)
		}
		data, err := elbCall(ctx, cfg, form)
		if err != nil {
			return nil, classifyRaw(err, "list "+k.name+"s with elasticloadbalancing:Describe"+k.plural)
		}
		var page struct {
			LBs    []member `xml:"DescribeLoadBalancersResult>LoadBalancers>member"`
			TGs    []member `xml:"DescribeTargetGroupsResult>TargetGroups>member"`
			LBNext string   `xml:"DescribeLoadBalancersResult>NextMarker"`
			TGNext string   `xml:"DescribeTargetGroupsResult>NextMarker"`
		}
		if err := xml.Unmarshal(data, &page); err != nil {
			return nil, unreadable("elasticloadbalancing:Describe"+k.plural, err)
		}
		for _, m := range append(page.LBs, page.TGs...) {
			all = append(all, elbResource{ARN: m.LBArn + m.TGArn, Name: m.LBName + m.TGName})
		}
		if marker = page.LBNext + page.TGNext; marker == "" {
			return all, nil
		}
	}
}

// ownedELB keeps the resources tagged as the cluster's (ELBv2 cannot
// filter by tag: DescribeTags, 20 ARNs a call).
func ownedELB(ctx context.Context, cfg aws.Config, clusterName string, all []elbResource) ([]elbResource, error) {
	var owned []elbResource
	for i := 0; i < len(all); i += 20 {
		batch := all[i:min(i+20, len(all))]
		form := url.Values{"Action": {"DescribeTags"}}
		for j, r := range batch {
			form.Set("ResourceArns.member."+strconv.Itoa(j+1), r.ARN)
		}
		var out struct {
			Items []struct {
				ARN  string `xml:"ResourceArn"`
				Tags []struct {
					Key   string `xml:"Key"`
					Value string `xml:"Value"`
				} `xml:"Tags>member"`
			} `xml:"DescribeTagsResult>TagDescriptions>member"`
		}
		data, err := elbCall(ctx, cfg, form)
		if err != nil {
			return nil, classifyRaw(err, "read load balancer tags with elasticloadbalancing:DescribeTags")
		}
		if err := xml.Unmarshal(data, &out); err != nil {
			return nil, unreadable("elasticloadbalancing:DescribeTags", err)
		}
		mine := map[string]bool{}
		for _, d := range out.Items {
			for _, t := range d.Tags {
				if t.Key == ClusterTag(clusterName) && t.Value == "owned" {
					mine[d.ARN] = true
				}
			}
		}
		for _, r := range batch {
			if mine[r.ARN] {
				owned = append(owned, r)
			}
		}
	}
	return owned, nil
}

func sweepSecurityGroups(ctx context.Context, cfg aws.Config, clusterName string, res *SweepResult) error {
	type group struct {
		ID   string `xml:"groupId"`
		Name string `xml:"groupName"`
	}
	var groups []group
	form := url.Values{"Action": {"DescribeSecurityGroups"}, "Filter.1.Name": {"tag:" + ClusterTag(clusterName)}, "Filter.1.Value.1": {"owned"}}
	err := ec2Pages(ctx, cfg, form, "list the cluster's security groups", func(data []byte) (string, error) {
		var page struct {
			Groups []group `xml:"securityGroupInfo>item"`
			Next   string  `xml:"nextToken"`
		}
		err := xml.Unmarshal(data, &page)
		groups = append(groups, page.Groups...)
		return page.Next, err
	})
	if err != nil {
		return err
	}
	for _, g := range groups {
		_, err := ec2Call(ctx, cfg, url.Values{"Action": {"DeleteSecurityGroup"}, "GroupId": {g.ID}})
		if code, ok := refusedToDelete(err); ok {
			res.Left = append(res.Left, Leftover{Kind: "security group", ID: g.ID + " " + g.Name, Reason: code})
			continue
		}
		if err != nil {
			return classifyRaw(err, "delete security group "+g.ID+" with ec2:DeleteSecurityGroup")
		}
		res.Deleted = append(res.Deleted, "security group "+g.ID)
	}
	return nil
}

package awsapi

import (
	"context"
	"encoding/xml"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// Auto Scaling lifecycle state of an instance that is running in its
// group (past Pending, not yet Terminating).
const InService = "InService"

// asgCall sends one Auto Scaling query-protocol call; its endpoint
// variable is the SDK's AWS_ENDPOINT_URL_AUTO_SCALING.
func asgCall(ctx context.Context, cfg aws.Config, form url.Values) ([]byte, error) {
	form.Set("Version", "2011-01-01")
	return queryCall(ctx, cfg, "autoscaling", endpointOf(cfg, "AUTO_SCALING", "autoscaling"), form)
}

// GroupInstances asks Auto Scaling (DescribeAutoScalingGroups) for the
// instances of the group name and their lifecycle states, by instance ID;
// none for a group that does not exist.
func GroupInstances(ctx context.Context, cfg aws.Config, name string) (map[string]string, error) {
	const action = "autoscaling:DescribeAutoScalingGroups"
	data, err := asgCall(ctx, cfg, url.Values{"Action": {"DescribeAutoScalingGroups"}, "AutoScalingGroupNames.member.1": {name}})
	if err != nil {
		return nil, classifyRaw(err, "list the instances of Auto Scaling group "+name+" with "+action)
	}
	var out struct {
		Groups []struct {
			Instances []struct {
				ID    string `xml:"InstanceId"`
				State string `xml:"LifecycleState"`
			} `xml:"Instances>member"`
		} `xml:"DescribeAutoScalingGroupsResult>AutoScalingGroups>member"`
	}
	if err := xml.Unmarshal(data, &out); err != nil {
		return nil, unreadable(action, err)
	}
	states := map[string]string{}
	for _, g := range out.Groups {
		for _, i := range g.Instances {
			states[i.ID] = i.State
		}
	}
	return states, nil
}

// ReplaceInGroup terminates an instance of an Auto Scaling group without
// lowering its desired capacity (TerminateInstanceInAutoScalingGroup), so
// the group launches a fresh one from its launch template.
func ReplaceInGroup(ctx context.Context, cfg aws.Config, instanceID string) error {
	_, err := asgCall(ctx, cfg, url.Values{"Action": {"TerminateInstanceInAutoScalingGroup"}, "InstanceId": {instanceID},
		"ShouldDecrementDesiredCapacity": {"false"}})
	if err != nil {
		return classifyRaw(err, "replace instance "+instanceID+" with autoscaling:TerminateInstanceInAutoScalingGroup")
	}
	return nil
}

package awsprovider

import (
	"context"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/fakeaws"
	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// A finished terraform destroy sweeps what Kubernetes created: a deleted
// load balancer means another pass (its groups may only now be free), and
// the final message names what AWS would not delete.
func TestDestroyReportsWhatItCouldNotDelete(t *testing.T) {
	aws := fakeAWS(t)
	user := aws.IAM.AddUser("123456789012", "kubeopera")
	creds := sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}
	owned := map[string]string{awsapi.ClusterTag("kubeopera-c1"): "owned"}
	aws.EC2.AddVolume(fakeaws.Volume{ID: "vol-free", State: "available", Tags: owned})
	aws.EC2.AddVolume(fakeaws.Volume{ID: "vol-busy", State: "in-use", Instance: "i-0keep", Tags: owned})
	aws.ELB.AddLoadBalancer(fakeaws.LoadBalancer{ARN: "arn:lb/ingress", Name: "ingress", Tags: owned})
	aws.SSM.Put("/kubeopera/c1/n0nce/members/0", "String", "ready")
	op := operation{Action: "destroy", ClusterID: "c1", Region: "eu-north-1", Relay: "/kubeopera/c1/n0nce"}
	done := sdk.OperationStatus{State: sdk.Succeeded, Progress: 100, Message: "destroyed"}

	st, err := finishDestroy(context.Background(), creds, op, done)
	if err != nil || st.State != sdk.Running || !strings.Contains(st.Message, "load balancer ingress") {
		t.Fatalf("first pass: %+v, %v; want Running after deleting the load balancer", st, err)
	}
	st, err = finishDestroy(context.Background(), creds, op, done)
	if err != nil || st.State != sdk.Succeeded {
		t.Fatalf("second pass: %+v, %v; want Succeeded", st, err)
	}
	if !strings.Contains(st.Message, "NOT deleted") || !strings.Contains(st.Message, "volume vol-busy (in-use, attached to i-0keep)") {
		t.Errorf("final message %q does not name the volume still in use", st.Message)
	}
	if _, ok := aws.EC2.Volume("vol-free"); ok {
		t.Error("the available volume is still there")
	}
	if _, ok := aws.SSM.Get("/kubeopera/c1/n0nce/members/0"); ok {
		t.Error("the relay parameters are still there")
	}
}

package awsprovider

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// finishDestroy runs once terraform destroyed everything it knew: it
// deletes the SSM parameters the nodes wrote and sweeps what the cluster's
// controllers created (volumes, load balancers, their target and security
// groups). Until both worked the destroy is Running, and Status, called
// again, tries again; a resource AWS will not delete is named in the final
// message, so nothing is left behind silently.
func finishDestroy(ctx context.Context, creds sdk.Credentials, op operation, out sdk.OperationStatus) (sdk.OperationStatus, error) {
	cfg, err := awsapi.Config(ctx, creds, op.Region)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	retry := func(format string, args ...any) (sdk.OperationStatus, error) {
		out.State, out.Progress = sdk.Running, 99
		out.Message = "terraform destroy done; " + fmt.Sprintf(format, args...)
		return out, nil
	}
	msg := out.Message
	if op.Relay != "" {
		n, err := awsapi.DeletePath(ctx, ssm.NewFromConfig(cfg), op.Relay)
		if err != nil {
			return retry("deleting the bootstrap parameters under %s failed, retrying: %v", op.Relay, err)
		}
		msg = fmt.Sprintf("%s; deleted %d bootstrap parameters under %s", msg, n, op.Relay)
	}
	name := tfmodules.Name(op.ClusterID)
	swept, err := awsapi.Sweep(ctx, cfg, name)
	if err != nil {
		return retry("deleting the resources Kubernetes created for the cluster (tagged %s) failed, retrying: %v",
			awsapi.ClusterTag(name), err)
	}
	if swept.LoadBalancersDeleted {
		// Their target groups and security groups may only now be free.
		return retry("deleted %s; sweeping again for what they held", strings.Join(swept.Deleted, ", "))
	}
	if len(swept.Deleted) > 0 {
		msg = fmt.Sprintf("%s; deleted what Kubernetes created for the cluster: %s", msg, strings.Join(swept.Deleted, ", "))
	}
	if len(swept.Left) > 0 {
		left := make([]string, len(swept.Left))
		for i, l := range swept.Left {
			left[i] = l.String()
		}
		msg = fmt.Sprintf("%s; NOT deleted, delete by hand (they cost money): %s", msg, strings.Join(left, ", "))
	}
	out.Message = msg
	return out, nil
}

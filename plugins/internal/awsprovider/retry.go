package awsprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/bootstrap"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// recreate is the advice of a retry that cannot work.
const recreate = "tear the cluster down and create it again"

// retry retries a failed bootstrap. Workers are replaced: each worker
// InService in the group that failed or never joined is terminated
// without lowering the group's desired capacity
// (TerminateInstanceInAutoScalingGroup), so the group launches a fresh
// one from the same launch template, which joins through the same relay;
// its marker is deleted and the deadline restarts (the operation's since).
// A control plane that failed is refused: a member that failed its join
// may have left an etcd member behind, and member 0's failure leaves no
// cluster to join, so both need a new relay and new members, which is a
// new cluster.
func (v vanilla) retry(ctx context.Context, cfg aws.Config, op operation, outputs map[string]json.RawMessage) (operation, error) {
	client := awsapi.NewSSM(cfg)
	prefix := relayPrefix(op.ClusterID, outputs)
	n := max(op.ControlPlanes, 1)
	for i := range n {
		value, err := client.GetParameter(ctx, bootstrap.MemberUnder(prefix, i), false)
		if err != nil && !awsapi.IsParameterNotFound(err) {
			return op, err
		}
		if m, perr := bootstrap.ParseMarker(value); err != nil || perr != nil || m.State == bootstrap.Failed {
			return op, sdk.FailedPrecondition("control plane %d of %d did not finish its bootstrap; a retry cannot replace a "+
				"control plane member (it may have left an etcd member, and its successors wait on it): %s", i+1, n, recreate)
		}
	}
	replace, err := v.workersToReplace(ctx, cfg, client, prefix, outputs)
	if err != nil {
		return op, err
	}
	if len(replace) == 0 {
		return op, sdk.FailedPrecondition("no worker InService in %s failed or is missing its bootstrap, so nothing can be replaced: %s",
			autoScalingGroup(outputs), recreate)
	}
	for _, id := range replace {
		if err := awsapi.ReplaceInGroup(ctx, cfg, id); err != nil {
			return op, fmt.Errorf("retry: %w", err)
		}
	}
	names := make([]string, len(replace))
	for i, id := range replace {
		names[i] = prefix + "/workers/" + id
	}
	if err := client.DeleteParameters(ctx, names); err != nil {
		return op, fmt.Errorf("retry: clear the markers of the replaced workers %s: %w", strings.Join(replace, ", "), err)
	}
	op.Started = v.now()
	return op, nil
}

// workersToReplace are the workers InService in the group that published
// a failure or, when none did (the deadline passed), those without a
// "joined" marker: one still bootstrapping is not replaced for another's
// failure.
func (v vanilla) workersToReplace(ctx context.Context, cfg aws.Config, client workerSSM, prefix string,
	outputs map[string]json.RawMessage) ([]string, error) {
	live, err := groupStates(ctx, cfg, outputs)
	if err != nil {
		return nil, err
	}
	if live == nil {
		return nil, sdk.FailedPrecondition("the cluster's outputs name no workers' Auto Scaling group, so its workers cannot be replaced: %s", recreate)
	}
	var failed, silent []string
	for id, state := range live {
		if state != awsapi.InService {
			continue
		}
		value, err := client.GetParameter(ctx, prefix+"/workers/"+id, false)
		if err != nil && !awsapi.IsParameterNotFound(err) {
			return nil, err
		}
		m, perr := bootstrap.ParseMarker(value)
		switch {
		case err == nil && perr == nil && m.State == bootstrap.Failed:
			failed = append(failed, id)
		case err != nil || perr != nil || m.State != bootstrap.Joined:
			silent = append(silent, id)
		}
	}
	if len(failed) == 0 {
		failed = silent
	}
	slices.Sort(failed)
	return failed, nil
}

package awsprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

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
// its marker is deleted and the deadline restarts (the operation's since,
// also recorded on the relay so a Provision asked again finds it: see
// resume).
//
// The relay nonce is kept, not rotated: the replacement's user_data is
// the launch template's, which names this nonce, and what it joins with
// lives under it: member 0's "ready" marker, which the worker waits for,
// and the worker join data, which every control plane's hourly
// refresh-join (bootstrap's control-plane.sh) publishes there with a
// fresh 2 h token. A new nonce would point the replacement at a path no
// control plane writes, and it would wait until its own timeout.
// Markers cannot collide either: a worker's is named by its instance ID.
//
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
	// Recorded once the replacements are on their way, not before: a
	// Provision asked again (the host lost this answer) must find the
	// restarted deadline rather than fail the replacements still booting
	// and replace them once more, but a retry whose termination was
	// refused must not restart the deadline with nothing replaced.
	now := v.now().UTC().Truncate(time.Second)
	if err := client.PutText(ctx, retriedUnder(prefix), now.Format(time.RFC3339)); err != nil {
		return op, fmt.Errorf("retry: record the retry on the relay: %w", err)
	}
	names := make([]string, len(replace))
	for i, id := range replace {
		names[i] = prefix + "/workers/" + id
	}
	if err := client.DeleteParameters(ctx, names); err != nil {
		return op, fmt.Errorf("retry: clear the markers of the replaced workers %s: %w", strings.Join(replace, ", "), err)
	}
	op.Started = now
	return op, nil
}

// retriedUnder is the relay parameter that holds when the last retry
// replaced workers (RFC 3339); the nodes never read it, and a destroy
// deletes it with the relay.
func retriedUnder(prefix string) string { return prefix + "/retried" }

// resume gives an apply operation without a start (Provision asked again)
// the time of the last retry recorded on the relay, so its deadline counts
// from the retry and its ID is the retry's own.
func (vanilla) resume(ctx context.Context, cfg aws.Config, op operation, outputs map[string]json.RawMessage) (operation, error) {
	if !op.Started.IsZero() {
		return op, nil
	}
	name := retriedUnder(relayPrefix(op.ClusterID, outputs))
	value, err := awsapi.NewSSM(cfg).GetParameter(ctx, name, false)
	switch {
	case awsapi.IsParameterNotFound(err):
		return op, nil
	case err != nil:
		return op, fmt.Errorf("read when the last retry was (%s): %w", name, err)
	}
	at, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return op, fmt.Errorf("the last retry's time in %s is not RFC 3339: %w", name, err)
	}
	op.Started = at
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

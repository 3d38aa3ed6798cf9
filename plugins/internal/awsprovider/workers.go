package awsprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/bootstrap"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// workerSSM is the part of SSM settleWorkers reads and clears the
// workers' markers with.
type workerSSM interface {
	awsapi.ParameterGetter
	ParameterNames(ctx context.Context, path, token string) ([]string, string, error)
	DeleteParameters(ctx context.Context, names []string) error
}

// settleWorkers waits, once the control planes are up, for the requested
// workers to join: a cluster whose workers all died has no schedulable
// node (its control planes stay tainted), so it is not done. Only the
// markers of instances InService in the workers' Auto Scaling group
// count; those of instances gone from it (scaled in, replaced) are
// deleted, so a scale-out does not finish early on a dead worker's
// "joined" and a dead worker's "failed" does not fail every later change.
// The first worker (by instance ID) that published a failure fails the
// operation with what it said; so does the deadline with workers missing.
func (v vanilla) settleWorkers(ctx context.Context, cfg aws.Config, client workerSSM, op operation, outputs map[string]json.RawMessage, prefix string) (*sdk.OperationStatus, error) {
	if op.Workers == 0 {
		return nil, nil
	}
	dir := prefix + "/workers"
	retry := func(what string, err error) (*sdk.OperationStatus, error) {
		return &sdk.OperationStatus{State: sdk.Running, Progress: workersProgress(0, op.Workers),
			Message: fmt.Sprintf("control planes ready; %s failed, retrying: %v", what, err)}, nil
	}
	names, err := parameterNames(ctx, client, dir)
	if err != nil {
		return retry("reading the workers' progress from "+dir, err)
	}
	live, err := groupStates(ctx, cfg, outputs)
	if err != nil {
		return retry("reading the instances of "+autoScalingGroup(outputs), err)
	}
	slices.Sort(names)
	joined := 0
	var gone []string
	for _, name := range names {
		if live != nil {
			state, ok := live[path.Base(name)]
			if !ok || strings.HasPrefix(state, "Terminat") {
				gone = append(gone, name)
				continue
			}
			if state != awsapi.InService {
				continue
			}
		}
		value, err := client.GetParameter(ctx, name, false)
		if err != nil {
			continue // listed then gone, or throttled: read again next time
		}
		m, err := bootstrap.ParseMarker(value)
		if err != nil {
			return nil, fmt.Errorf("bootstrap marker %s: %w", name, err)
		}
		switch m.State {
		case bootstrap.Failed:
			return &sdk.OperationStatus{State: sdk.Failed, ErrorClass: bootstrapFailed,
				Message: fmt.Sprintf("worker %s failed its bootstrap at step %s: %s (its log is /var/log/kubeopera/bootstrap.log on instance %s)",
					path.Base(name), m.Step, m.Reason, path.Base(name))}, nil
		case bootstrap.Joined:
			joined++
		}
	}
	if len(gone) > 0 {
		// Best effort: what is left is skipped again next time.
		_ = client.DeleteParameters(ctx, gone)
	}
	if joined >= op.Workers {
		return nil, nil
	}
	if v.pastDeadline(op, outputs) {
		return &sdk.OperationStatus{State: sdk.Failed, ErrorClass: bootstrapFailed,
			Message: fmt.Sprintf("%d of %d workers joined within %s of the machines' creation (of the update's start, for a scale); the others never reported: "+
				"they failed before they could report or cannot reach SSM; read /var/log/kubeopera/bootstrap.log on the instances of %s "+
				"(aws ssm start-session --target <instance>)", joined, op.Workers, settleTimeout, autoScalingGroup(outputs))}, nil
	}
	return &sdk.OperationStatus{State: sdk.Running, Progress: workersProgress(joined, op.Workers),
		Message: fmt.Sprintf("control planes ready; %d of %d workers joined", joined, op.Workers)}, nil
}

// groupStates are the lifecycle states of the workers' Auto Scaling
// group's instances by ID; nil when the outputs name no group (a module
// tree without one), and then every marker counts.
func groupStates(ctx context.Context, cfg aws.Config, outputs map[string]json.RawMessage) (map[string]string, error) {
	var name string
	if json.Unmarshal(outputs["worker_autoscaling_group_name"], &name) != nil || name == "" {
		return nil, nil
	}
	return awsapi.GroupInstances(ctx, cfg, name)
}

// parameterNames lists every parameter under dir, all pages.
func parameterNames(ctx context.Context, client workerSSM, dir string) ([]string, error) {
	var names []string
	for token := ""; ; {
		page, next, err := client.ParameterNames(ctx, dir, token)
		if err != nil {
			return nil, err
		}
		names = append(names, page...)
		if next == "" {
			return names, nil
		}
		token = next
	}
}

// workersProgress puts the workers' joins in the last tenth of Progress.
func workersProgress(joined, workers int) int {
	return 90 + 9*joined/workers
}

// autoScalingGroup names the workers' Auto Scaling Group from the outputs.
func autoScalingGroup(outputs map[string]json.RawMessage) string {
	var name string
	if json.Unmarshal(outputs["worker_autoscaling_group_name"], &name) == nil && name != "" {
		return "Auto Scaling Group " + name
	}
	return "the workers' Auto Scaling Group"
}

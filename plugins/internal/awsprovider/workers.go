package awsprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/bootstrap"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// workerSSM is the part of SSM settleWorkers reads the workers' markers with.
type workerSSM interface {
	awsapi.ParameterGetter
	ParameterNames(ctx context.Context, path, token string) ([]string, string, error)
}

// settleWorkers waits, once the control planes are up, for the requested
// workers to join: a cluster whose workers all died has no schedulable
// node (its control planes stay tainted), so it is not done. The first
// worker (by instance ID) that published a failure fails the operation
// with what it said; so does the deadline with workers missing.
func (v vanilla) settleWorkers(ctx context.Context, client workerSSM, op operation, outputs map[string]json.RawMessage, prefix string) (*sdk.OperationStatus, error) {
	if op.Workers == 0 {
		return nil, nil
	}
	dir := prefix + "/workers"
	names, err := parameterNames(ctx, client, dir)
	if err != nil {
		return &sdk.OperationStatus{State: sdk.Running, Progress: workersProgress(0, op.Workers),
			Message: fmt.Sprintf("control planes ready; reading the workers' progress from %s failed, retrying: %v", dir, err)}, nil
	}
	slices.Sort(names)
	joined := 0
	for _, name := range names {
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
			return &sdk.OperationStatus{State: sdk.Failed, ErrorClass: sdk.Retryable,
				Message: fmt.Sprintf("worker %s failed its bootstrap at step %s: %s (its log is /var/log/kubeopera/bootstrap.log on instance %s)",
					path.Base(name), m.Step, m.Reason, path.Base(name))}, nil
		case bootstrap.Joined:
			joined++
		}
	}
	if joined >= op.Workers {
		return nil, nil
	}
	if v.pastDeadline(op, outputs) {
		return &sdk.OperationStatus{State: sdk.Failed, ErrorClass: sdk.Retryable,
			Message: fmt.Sprintf("%d of %d workers joined within %s of the machines' creation (of the update's start, for a scale); the others never reported: "+
				"they failed before they could report or cannot reach SSM; read /var/log/kubeopera/bootstrap.log on the instances of %s "+
				"(aws ssm start-session --target <instance>)", joined, op.Workers, settleTimeout, autoScalingGroup(outputs))}, nil
	}
	return &sdk.OperationStatus{State: sdk.Running, Progress: workersProgress(joined, op.Workers),
		Message: fmt.Sprintf("control planes ready; %d of %d workers joined", joined, op.Workers)}, nil
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

package awsprovider

import (
	"context"
	"fmt"
	"strings"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// finishDestroy runs once terraform destroyed everything it knew: it
// deletes the SSM parameters the nodes wrote (once) and sweeps what the
// cluster's controllers created (volumes, load balancers, their target and
// security groups). Until both worked the destroy is Running, and Status,
// called again, tries again; a pass that deleted a load balancer is
// followed by another, as its groups may only then be free. What every
// pass deleted is kept in log, so the final message names all of it, and
// apart what AWS would not delete, so nothing is left behind silently.
func finishDestroy(ctx context.Context, creds sdk.Credentials, op operation, out sdk.OperationStatus, log sweepLog) (sdk.OperationStatus, error) {
	cfg, err := awsapi.Config(ctx, creds, op.Region)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	retry := func(format string, args ...any) (sdk.OperationStatus, error) {
		out.State, out.Progress = sdk.Running, 99
		out.Message = "terraform destroy done; " + fmt.Sprintf(format, args...)
		return out, nil
	}
	rec, cm, err := log.load(ctx, op)
	if err != nil {
		return retry("%v; retrying", err)
	}
	before := len(rec.Deleted)
	if op.Relay != "" && !rec.RelayDone {
		n, err := awsapi.DeletePath(ctx, awsapi.NewSSM(cfg), op.Relay)
		if err != nil {
			return retry("deleting the bootstrap parameters under %s failed, retrying: %v", op.Relay, err)
		}
		rec.RelayDone, rec.RelayDeleted = true, n
	}
	name := tfmodules.Name(op.ClusterID)
	// A failed sweep still reports what it deleted before it failed.
	swept, err := awsapi.Sweep(ctx, cfg, name)
	var passErr error
	if err != nil {
		passErr = fmt.Errorf("deleting the resources Kubernetes created for the cluster (tagged %s) failed, retrying: %w",
			awsapi.ClusterTag(name), err)
	}
	rec.Deleted = append(rec.Deleted, swept.Deleted...)
	if passErr != nil || swept.LoadBalancersDeleted {
		if err := log.save(ctx, op, rec, cm); err != nil {
			return retry("%v; retrying (deleted this time: %s)", err, orNothing(rec.Deleted[before:]))
		}
		if passErr != nil {
			return retry("%v", passErr)
		}
		return retry("deleted so far: %s; sweeping again for what the load balancers held", orNothing(rec.Deleted))
	}
	if cm != nil {
		if err := log.forget(ctx, op); err != nil {
			return retry("%v; retrying", err)
		}
	}
	out.Message = finalMessage(out.Message, op, rec, swept.Left)
	return out, nil
}

// sweepBeforeDestroy deletes the load balancers the cluster's controllers
// made (an ingress Service's NLB, say) before terraform destroy starts: one
// left in the public subnets holds addresses there, so terraform cannot
// delete the subnets, the destroy fails, and the sweep after it never runs.
// What it deleted goes into the destroy's record, so the final message
// names it. An error stops the Destroy call, saying what failed; the host
// calls again.
func (p *Provider) sweepBeforeDestroy(ctx context.Context, creds sdk.Credentials, op operation) error {
	log, err := p.sweepLogs.get()
	if err != nil {
		return err
	}
	cfg, err := awsapi.Config(ctx, creds, op.Region)
	if err != nil {
		return err
	}
	rec, cm, err := log.load(ctx, op)
	if err != nil {
		return sdk.Unavailable("before terraform destroy: %v", err)
	}
	name := tfmodules.Name(op.ClusterID)
	swept, err := awsapi.SweepBlockers(ctx, cfg, name)
	if len(swept.Deleted) > 0 {
		rec.Deleted = append(rec.Deleted, swept.Deleted...)
		if serr := log.save(ctx, op, rec, cm); serr != nil {
			return sdk.Unavailable("before terraform destroy, deleted %s: %v", strings.Join(swept.Deleted, ", "), serr)
		}
	}
	if err != nil {
		return fmt.Errorf("before terraform destroy, deleting the load balancers Kubernetes created for the cluster (tagged %s): %w",
			awsapi.ClusterTag(name), err)
	}
	return nil
}

// finalMessage is the destroy's last message: what every pass deleted,
// then what AWS would not delete.
func finalMessage(msg string, op operation, rec sweepRecord, left []awsapi.Leftover) string {
	if op.Relay != "" {
		msg = fmt.Sprintf("%s; deleted %d bootstrap parameters under %s", msg, rec.RelayDeleted, op.Relay)
	}
	if len(rec.Deleted) > 0 {
		msg = fmt.Sprintf("%s; deleted what Kubernetes created for the cluster: %s", msg, strings.Join(rec.Deleted, ", "))
	}
	if len(left) > 0 {
		names := make([]string, len(left))
		for i, l := range left {
			names[i] = l.String()
		}
		msg = fmt.Sprintf("%s; NOT deleted, delete by hand (they cost money): %s", msg, strings.Join(names, ", "))
	}
	return msg
}

func orNothing(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

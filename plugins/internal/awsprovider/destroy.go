package awsprovider

import (
	"context"
	"fmt"
	"strings"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
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
func (p *Provider) sweepBeforeDestroy(ctx context.Context, creds sdk.Credentials, op operation, in map[string]string) error {
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
	rec.Deleted, rec.Inputs = append(rec.Deleted, swept.Deleted...), in
	if serr := log.save(ctx, op, rec, cm); serr != nil {
		return sdk.Unavailable("before terraform destroy, deleted %s: %v", orNothing(swept.Deleted), serr)
	}
	if err != nil {
		return fmt.Errorf("before terraform destroy, deleting the load balancers Kubernetes created for the cluster (tagged %s): %w",
			awsapi.ClusterTag(name), err)
	}
	return nil
}

// maxDestroyAgain bounds the destroys started again after a
// DependencyViolation: each follows a sweep that deleted something, and
// what still holds the VPC after that is for a person to find.
const maxDestroyAgain = 2

// destroyAgain follows a terraform destroy that failed on a
// DependencyViolation (something Terraform never made holds a subnet or
// the VPC): it runs the sweep after destroy now, and when that deleted
// something, starts terraform destroy once more with the destroy's
// recorded inputs and reports Running; otherwise the failure stands, with
// what the sweep found.
func (p *Provider) destroyAgain(ctx context.Context, creds sdk.Credentials, op operation, exec terraform.Executor, failed sdk.OperationStatus) (sdk.OperationStatus, error) {
	log, err := p.sweepLogs.get()
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	rec, cm, err := log.load(ctx, op)
	if err != nil || rec.Inputs == nil || rec.Again >= maxDestroyAgain {
		return failed, err
	}
	cfg, err := awsapi.Config(ctx, creds, op.Region)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	swept, err := awsapi.Sweep(ctx, cfg, tfmodules.Name(op.ClusterID))
	rec.Deleted = append(rec.Deleted, swept.Deleted...)
	if err != nil || len(swept.Deleted) == 0 {
		failed.Message = finalMessage(failed.Message+"; the sweep after it deleted nothing more", op, rec, swept.Left)
		return failed, err
	}
	rec.Again++
	if err := log.save(ctx, op, rec, cm); err != nil {
		return sdk.OperationStatus{}, err
	}
	_, inJob := exec.(terraform.Jobs)
	env, role, err := terraformAuth(ctx, creds, op.Region, inJob)
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	module, err := p.module(op.ClusterID, rec.Inputs, placement{role: role})
	if err != nil {
		return sdk.OperationStatus{}, err
	}
	if err := exec.Start(ctx, terraform.Run{ID: op.ClusterID, Action: terraform.Destroy, Module: module, Env: env}); err != nil {
		return sdk.OperationStatus{}, err
	}
	return sdk.OperationStatus{OperationID: failed.OperationID, State: sdk.Running, Progress: 50, Message: fmt.Sprintf(
		"terraform destroy failed on a DependencyViolation; deleted what held the VPC (%s); destroying again (%d of %d)",
		strings.Join(swept.Deleted, ", "), rec.Again, maxDestroyAgain)}, nil
}

// dependencyViolation reports a terraform failure AWS refused because
// something still used the resource.
func dependencyViolation(st sdk.OperationStatus) bool {
	return strings.Contains(st.Message+strings.Join(st.LogTail, "\n"), "DependencyViolation")
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

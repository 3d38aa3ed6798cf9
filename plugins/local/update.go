package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// Update scales a Ready local cluster: it adds or removes simulated nodes
// before it returns, and Status of the operation follows kwok making the
// new ones Ready. A Kubernetes version change is refused (Unimplemented):
// the sandbox has one version's binaries.
func (p provider) Update(ctx context.Context, r sdk.UpdateRequest) (sdk.Operation, error) {
	info, _ := p.GetInfo(ctx)
	if r.KubernetesVersion != "" && r.KubernetesVersion != localcloud.KubernetesVersion {
		if err := sdk.CheckUpgrade(info, localcloud.KubernetesVersion, r.KubernetesVersion); err != nil {
			return sdk.Operation{}, err
		}
	}
	if err := localcloud.CheckID(r.ClusterID); err != nil {
		return sdk.Operation{}, sdk.InvalidInput(sdk.FieldError{Field: "clusterID", Message: err.Error()})
	}
	n := r.NodeCount
	if n == 0 {
		nodes, err := localcloud.CountNodes(ctx, root(), r.ClusterID)
		if err != nil {
			return sdk.Operation{}, clusterError(err)
		}
		n = nodes.Desired
	}
	if err := sdk.CheckNodeCount(info, n); err != nil {
		return sdk.Operation{}, err
	}
	if err := localcloud.Scale(ctx, root(), r.ClusterID, n); err != nil {
		return sdk.Operation{}, clusterError(err)
	}
	return sdk.Operation{ID: fmt.Sprintf("%s%d-%s", scalePrefix, n, r.ClusterID)}, nil
}

// scaleStatus follows a scale to n nodes of the cluster named in rest
// ("<n>-<id>"): done when the cluster has exactly n nodes, all Ready.
func scaleStatus(ctx context.Context, out sdk.OperationStatus, rest string) (sdk.OperationStatus, error) {
	count, id, _ := strings.Cut(rest, "-")
	n, err := strconv.Atoi(count)
	if err != nil || localcloud.CheckID(id) != nil {
		return out, sdk.NotFound("no local operation %q", out.OperationID)
	}
	nodes, err := localcloud.CountNodes(ctx, root(), id)
	if err != nil {
		return out, clusterError(err)
	}
	out.NodeCount, out.KubernetesVersion = nodes.Total, localcloud.KubernetesVersion
	if nodes.Total == n && nodes.Ready == n {
		out.State, out.Progress, out.Message = sdk.Succeeded, 100, fmt.Sprintf("%d nodes Ready", n)
		return out, nil
	}
	out.State, out.Progress = sdk.Running, 50
	out.Message = fmt.Sprintf("scaling to %d nodes: %d exist, %d Ready", n, nodes.Total, nodes.Ready)
	return out, nil
}

// clusterError: an unknown cluster is NotFound, one that is not Ready a
// FailedPrecondition.
func clusterError(err error) error {
	if errors.Is(err, localcloud.ErrNotFound) {
		return sdk.NotFound("%v", err)
	}
	return sdk.FailedPrecondition("%v", err)
}

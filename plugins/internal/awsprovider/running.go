package awsprovider

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// adoptRunningVersion reads an EKS cluster's real version (DescribeCluster)
// before a day-2 change is planned: under upgrade policy STANDARD, EKS
// upgrades a cluster itself at the end of standard support, and an apply
// of the old minor would ask EKS for a downgrade, which it refuses. A
// newer control plane becomes the applied one (its node group stays where
// it is, and the plan moves it). Without credentials, with the preflight
// off, or without eks:DescribeCluster, the record is taken as it is.
func (p *Provider) adoptRunningVersion(ctx context.Context, in map[string]string, creds sdk.Credentials, id string, rec *day2Record) error {
	if p.opts.ControlPlane || len(creds) == 0 || !preflightOn() {
		return nil
	}
	cfg, err := awsapi.Config(ctx, creds, in["region"])
	if err != nil {
		return err
	}
	running, err := awsapi.ClusterVersion(ctx, cfg, tfmodules.Name(id))
	var denied *awsapi.DeniedError
	switch {
	case errors.Is(err, awsapi.ErrNoSuchCluster) || errors.As(err, &denied):
		return nil // terraform finds out; a denial is the same as before this check
	case err != nil:
		return err
	}
	if newerMinor(running, rec.Applied.Version) {
		if _, _, err := p.opts.Versions.Resolve(running); err != nil {
			return sdk.FailedPrecondition("EKS upgraded cluster %s to Kubernetes %s itself (the end of %s's standard support), "+
				"which this plugin does not offer (%s): use a KubeOpera release that offers %s", id, running, rec.Applied.Version,
				strings.Join(p.opts.Versions.Minors(), ", "), running)
		}
		rec.Applied.Version = running
	}
	return nil
}

// newerMinor reports whether minor a (e.g. 1.36) is newer than b.
func newerMinor(a, b string) bool {
	pa, pb := strings.SplitN(a, ".", 3), strings.SplitN(b, ".", 3)
	if len(pa) < 2 || len(pb) < 2 {
		return false
	}
	for i := range 2 {
		x, errX := strconv.Atoi(pa[i])
		y, errY := strconv.Atoi(pb[i])
		if errX != nil || errY != nil {
			return false
		}
		if x != y {
			return x > y
		}
	}
	return false
}

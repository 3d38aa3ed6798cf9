package api

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/kubeconfig"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// connectRequest is POST /clusters/connect, as JSON or as a multipart form
// whose "kubeconfig" part may be an uploaded file.
type connectRequest struct {
	Name       string `json:"name" form:"name" jsonschema:"required"`
	Provider   string `json:"provider" form:"provider" jsonschema:"required"`
	Region     string `json:"region" form:"region"`
	Kubeconfig string `json:"kubeconfig" form:"kubeconfig" jsonschema:"required"`
	// IsHost connects the cluster KubeOpera's host runs in (clears Get
	// Started); the database's one-host index refuses a second host.
	IsHost bool `json:"isHost" form:"isHost"`
	// Team owns the cluster; "default" when left out.
	Team string `json:"team,omitempty" form:"team"`
	pipelineRequest
}

func (s *server) connectCluster(c *fiber.Ctx) error {
	req, err := readConnect(c)
	if err != nil {
		return err
	}
	if err := s.teamOf(c, &req.Team); err != nil {
		return err
	}
	req.pipelineRequest = s.defaults.fill(req.pipelineRequest, req.Name)
	checks := []*FieldProblem{checkName("name", req.Name), checkCloud("provider", req.Provider), checkRegion("region", req.Region)}
	if err := collect(append(checks, req.checks()...)...); err != nil {
		return err
	}
	sum, err := kubeconfig.Validate([]byte(req.Kubeconfig), maxKubeconfigBytes)
	if err != nil {
		return invalid(FieldProblem{"kubeconfig", kubeconfigDetail(err)})
	}
	// The controller will use this kubeconfig on KubeOpera's side: nothing
	// in it may run a command or read a file there.
	if len(sum.External) > 0 {
		return invalid(FieldProblem{"kubeconfig", sum.External[0] + " on the KubeOpera server: " +
			"paste a kubeconfig whose user has a token or a client certificate, embedded"})
	}
	if len(sum.Unsafe) > 0 && !s.allowUnsafeKubeconfigs {
		return invalid(FieldProblem{"kubeconfig", strings.Join(sum.Unsafe, "; ") + ". KubeOpera refuses such kubeconfigs " +
			"unless its administrator starts the server with --allow-unsafe-kubeconfigs"})
	}
	row := &store.Cluster{Name: req.Name, Team: req.Team, Provider: req.Provider, Region: req.Region,
		Source: store.SourceConnectedExisting, IsHost: req.IsHost}
	if _, none := s.registry.(hostclusters.Unconfigured); !none {
		// Recorded on the row, the UID also makes the database refuse a
		// second connect of the same cluster racing this one.
		if uid := clusterUID(c.UserContext(), []byte(req.Kubeconfig)); uid != "" {
			if err := s.refuseManaged(c.UserContext(), uid); err != nil {
				return err
			}
			row.ClusterUID = &uid
		}
	}
	spec := hostclusters.Spec{Mode: hostclusters.ConnectExisting, Provider: req.Provider, Region: req.Region,
		Kubeconfig: []byte(req.Kubeconfig)}
	req.apply(&spec)
	return s.createAndHandOver(c, row, spec)
}

// createAndHandOver inserts the row with its audit row (one transaction),
// creates its HostCluster and answers 202 with the row. The row caches no
// prediction: its status is what DerivePhase says of a HostCluster no
// controller has seen (Pending). Without a management cluster nothing is
// created; if the HostCluster cannot be created the row is removed, and a
// row a crash or a failed removal leaves behind goes after
// hostclusters.HandOverGrace (syncOnRead, the controller's repair sweep).
func (s *server) createAndHandOver(c *fiber.Ctx, row *store.Cluster, spec hostclusters.Spec) error {
	ctx := c.UserContext()
	if _, none := s.registry.(hostclusters.Unconfigured); none {
		return problem(http.StatusServiceUnavailable, "%v", hostclusters.ErrNotConfigured)
	}
	row.Status, row.Message = string(v1alpha1.PhasePending), "waiting for the controller to take the cluster up"
	if err := s.store.CreateCluster(ctx, row, s.auditedWith(c, http.StatusAccepted)); err != nil {
		c.Locals(auditedKey, nil) // not stored: the middleware records the failure
		return err
	}
	c.Locals(auditTargetKey, row.ID)
	spec.ID, spec.DisplayName = row.ID, row.Name
	if err := s.registry.Create(ctx, spec); err != nil {
		c.Locals(auditedKey, nil) // the middleware records the failure too
		if derr := s.store.DeleteCluster(ctx, row.ID); derr != nil {
			s.log.Error("could not remove cluster row after HostCluster failure; it is removed after the hand-over grace",
				"cluster", row.ID, "error", derr)
		}
		if errors.Is(err, hostclusters.ErrNotConfigured) {
			return problem(http.StatusServiceUnavailable, "%v", err)
		}
		return problem(http.StatusBadGateway, "could not hand cluster %q to the controller: %v", row.Name, err)
	}
	return c.Status(http.StatusAccepted).JSON(view(*row))
}

func readConnect(c *fiber.Ctx) (connectRequest, error) {
	var req connectRequest
	if !strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEMultipartForm) {
		return req, bindJSON(c, &req)
	}
	if err := c.BodyParser(&req); err != nil {
		return req, problem(http.StatusBadRequest, "cannot read the form: %v", err)
	}
	fh, err := c.FormFile("kubeconfig")
	if err != nil {
		return req, nil // pasted as a plain field, or missing: Validate says which
	}
	if fh.Size > maxKubeconfigBytes {
		return req, invalid(FieldProblem{"kubeconfig", "the uploaded file is larger than the 256 KiB limit"})
	}
	f, err := fh.Open()
	if err != nil {
		return req, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKubeconfigBytes+1))
	if err != nil {
		return req, err
	}
	req.Kubeconfig = string(b)
	return req, nil
}

// kubeconfigDetail is a kubeconfig error for the kubeconfig field, without
// a second "kubeconfig: " in front.
func kubeconfigDetail(err error) string {
	var kerr *kubeconfig.Error
	if errors.As(err, &kerr) {
		return kerr.Detail()
	}
	return err.Error()
}

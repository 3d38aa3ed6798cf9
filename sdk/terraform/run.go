package terraform

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// Action is what a run does with a module.
type Action string

// The actions of a run.
const (
	// Apply runs terraform init and terraform apply.
	Apply Action = "apply"
	// Destroy runs terraform init and terraform destroy.
	Destroy Action = "destroy"
)

// Run is one terraform run for one cluster.
type Run struct {
	// ID is the cluster ID. It names everything the run leaves behind: the
	// local workspace <Dir>/<ID>, the Job provision-<ID> or destroy-<ID>,
	// and the state Secret tfstate-default-<StateSuffix(ID)> of the
	// kubernetes backend.
	// It must be a DNS label (lowercase letters, digits and '-') of at most
	// MaxIDLength characters.
	ID string
	// Action is Apply or Destroy.
	Action Action
	// Module is the complete module tree, usually from NewModule.
	Module Module
	// Generation numbers the applies of one cluster on the same state: 0
	// is the first (the Job provision-<ID>, the workspace <Dir>/<ID>); n > 0
	// is a later apply of a changed module (day 2: scale, upgrade), run as
	// the Job update-<ID>-<n> or in the workspace <Dir>/<ID>/update-<n>,
	// each started once and followed with GenerationStatus. A lock a killed
	// update run left is cleared by the next update run; one the first
	// apply holds never is (it may still run). Destroy has no generations.
	Generation int
	// Env is the secret environment of terraform, e.g. AWS_ACCESS_KEY_ID.
	// It is never logged and never written to a file; the Job executor
	// keeps it in a Secret that lives as long as the run. Names that
	// terraform-exec manages (TF_VAR_*, TF_CLI_ARGS*, TF_LOG*, TF_INPUT,
	// TF_IN_AUTOMATION, TF_WORKSPACE, ...) are refused, so a run behaves the
	// same in both executors: pass module inputs through the root module.
	Env map[string]string
}

// Status is a snapshot of a run.
type Status struct {
	// State is Pending (a Job's pod not started yet), Running, Succeeded or
	// Failed.
	State sdk.State
	// Message is a sentence for a person, e.g. "terraform apply: 7 of 12
	// resources created" or terraform's own error.
	Message string
	// Progress runs from 0 to 100; it is estimated from the log: completed
	// resource changes against the count in the "Plan:" line.
	Progress int
	// LogTail holds the last lines (up to LogTailLines) of the terraform
	// output of the current attempt.
	LogTail []string
	// ErrorClass is set when State is Failed.
	ErrorClass sdk.ErrorClass
	// Follow says where a person reads the run's whole output: a kubectl
	// logs command naming the Job, or the local log file.
	Follow string
}

// Executor starts terraform runs and reports on them. Both
// implementations find everything again from the run ID, so a plugin that
// restarted reports on runs a previous process started.
type Executor interface {
	// Start starts r. It is idempotent: a run with the same ID and Action
	// that is pending, running or succeeded is not started again. A run
	// whose last attempt failed (or was interrupted) is started again; the
	// state in the backend makes it resume where the last attempt stopped.
	Start(ctx context.Context, r Run) error
	// Status reports on the run of action a for cluster id. An unknown run
	// is an sdk.NotFound error.
	Status(ctx context.Context, id string, a Action) (Status, error)
	// GenerationStatus reports on apply generation g of cluster id (see
	// Run.Generation); generation 0 is Status(ctx, id, Apply). An unknown
	// run is an sdk.NotFound error.
	GenerationStatus(ctx context.Context, id string, g int) (Status, error)
	// Outputs returns the root outputs (sensitive ones included) of the
	// last successful apply of cluster id as JSON values. It is an
	// sdk.FailedPrecondition error while the apply has not succeeded and
	// sdk.NotFound when there is neither a run nor a state for id.
	Outputs(ctx context.Context, id string) (map[string]json.RawMessage, error)
}

// MaxIDLength is the longest run ID (47): a Job's pod is named
// provision-<ID>-<5 random characters>, and that name must fit the 63
// characters of a host name, which terraform records in its state lock
// (a Job's pod recognizes a lock a killed pod of its cluster left by it).
const MaxIDLength = 63 - len("provision-") - len("-xxxxx")

// LogTailLines is how many lines Status.LogTail holds at most.
const LogTailLines = 30

var (
	idPattern  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	envPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// validateRun returns an sdk.InvalidInput error naming each bad field of r.
func validateRun(r Run) error {
	var errs []sdk.FieldError
	if err := validateID(r.ID); err != nil {
		errs = append(errs, sdk.FieldErrors(err)...)
	}
	if r.Action != Apply && r.Action != Destroy {
		errs = append(errs, sdk.FieldError{Field: "action",
			Message: fmt.Sprintf("%q is not an action: use %q or %q", r.Action, Apply, Destroy)})
	}
	if err := validateGeneration(r); err != nil {
		errs = append(errs, *err)
	}
	if len(r.Module.Files) == 0 {
		errs = append(errs, sdk.FieldError{Field: "module", Message: "has no files: build it with NewModule"})
	}
	for _, p := range sortedKeys(r.Module.Files) {
		if !fs.ValidPath(p) || p == "." || strings.Contains(p, `\`) {
			errs = append(errs, sdk.FieldError{Field: "module.files." + p,
				Message: "is not a relative slash-separated path inside the module (no '..', no leading '/')"})
		}
	}
	for _, k := range sortedKeys(r.Env) {
		switch {
		case !envPattern.MatchString(k):
			errs = append(errs, sdk.FieldError{Field: "env." + k,
				Message: "is not an environment variable name (letters, digits and '_', not starting with a digit)"})
		case len(tfexec.ProhibitedEnv(map[string]string{k: ""})) > 0:
			errs = append(errs, sdk.FieldError{Field: "env." + k,
				Message: "is managed by terraform-exec and cannot be set: pass module inputs through the root module instead"})
		}
	}
	return sdk.InvalidInput(errs...)
}

// validateGeneration refuses a negative generation, a destroy with one,
// and one whose Job name would not leave room for the pod suffix.
func validateGeneration(r Run) *sdk.FieldError {
	switch {
	case r.Generation < 0:
		return &sdk.FieldError{Field: "generation", Message: fmt.Sprintf("must be 0 or more, got %d", r.Generation)}
	case r.Generation > 0 && r.Action != Apply:
		return &sdk.FieldError{Field: "generation", Message: fmt.Sprintf("only an apply has generations; a %s runs on generation 0", r.Action)}
	case len(GenerationJobName(r.ID, r.Generation)) > MaxIDLength+len("provision-"):
		return &sdk.FieldError{Field: "generation", Message: fmt.Sprintf(
			"%d is too large for cluster ID %q: the Job name %s must fit in %d characters; a shorter cluster ID allows more updates",
			r.Generation, r.ID, GenerationJobName(r.ID, r.Generation), MaxIDLength+len("provision-"))}
	}
	return nil
}

func validateID(id string) error {
	if len(id) <= MaxIDLength && idPattern.MatchString(id) {
		return nil
	}
	return sdk.InvalidInput(sdk.FieldError{Field: "id", Message: fmt.Sprintf(
		"%q is not a valid cluster ID: use at most %d lowercase letters, digits and '-', starting and ending with a letter or digit",
		id, MaxIDLength)})
}

// envNames lists the names of env, never the values, for logs.
func envNames(env map[string]string) []string {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

package sdktest

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
)

var fieldNameRE = regexp.MustCompile(`^[a-z][A-Za-z0-9]*$`)

func (k *kit) schemaSane(t *testing.T) {
	checkFields(t, "field", k.info.Schema)
	for _, kind := range k.info.CredentialKinds {
		if !fieldNameRE.MatchString(strings.ReplaceAll(kind.Name, "_", "")) || kind.DisplayName == "" || len(kind.Fields) == 0 {
			t.Errorf("credential kind %q: needs a name of letters, digits and _, a display name and fields", kind.Name)
		}
		checkFields(t, "credential kind "+kind.Name+" field", kind.Fields)
		if kind.Last4Field != "" && !slices.ContainsFunc(kind.Fields, func(f sdk.InputField) bool {
			return f.Name == kind.Last4Field && !f.Secret
		}) {
			t.Errorf("credential kind %q: Last4Field %q is not one of its non-secret fields", kind.Name, kind.Last4Field)
		}
	}
	if k.info.RegionInput != "" && !slices.ContainsFunc(k.info.Schema, func(f sdk.InputField) bool { return f.Name == k.info.RegionInput }) {
		t.Errorf("Info.RegionInput %q is not an input of the schema", k.info.RegionInput)
	}
	k.credentialsAsTheServerSeesThem(t)
	k.day2Sane(t)
}

// checkFields checks the declarations of inputs or credential fields.
func checkFields(t *testing.T, what string, fields []sdk.InputField) {
	seen := map[string]bool{}
	for _, f := range fields {
		if f.Type == sdk.CredentialRef && len(f.CredentialKinds) == 0 {
			t.Errorf("%s %q: a credential reference must name the kinds it accepts (CredentialKinds)", what, f.Name)
		}
		if f.Pattern != "" {
			if _, err := regexp.Compile(f.Pattern); err != nil {
				t.Errorf("%s %q: pattern does not compile: %v", what, f.Name, err)
			}
		}
		if f.Min != nil && f.Max != nil && *f.Min > *f.Max {
			t.Errorf("%s %q: Min %d is above Max %d", what, f.Name, *f.Min, *f.Max)
		}
		if !fieldNameRE.MatchString(f.Name) {
			t.Errorf("%s %q: name must be lowerCamelCase letters and digits", what, f.Name)
		}
		if seen[f.Name] {
			t.Errorf("%s %q is declared twice", what, f.Name)
		}
		seen[f.Name] = true
		if f.Type != sdk.String && f.Type != sdk.Int && f.Type != sdk.Bool && f.Type != sdk.CredentialRef {
			t.Errorf("%s %q: type %q, want string, int, bool or credential", what, f.Name, f.Type)
		}
		if f.Help == "" {
			t.Errorf("%s %q has no help text", what, f.Name)
		}
		if f.Min != nil && f.Max != nil && strings.Contains(f.Help, fmt.Sprintf("%d to %d", *f.Min, *f.Max)) {
			t.Errorf("%s %q: help %q restates Min and Max, which hosts show next to it (the dashboard as \"(%d to %d)\"): leave them out",
				what, f.Name, f.Help, *f.Min, *f.Max)
		}
		if f.Secret && f.Default != "" {
			t.Errorf("%s %q is secret but has a default", what, f.Name)
		}
		if f.Required && f.Default != "" {
			t.Errorf("%s %q is required but has a default, so it can never be missing", what, f.Name)
		}
		for _, v := range append(slices.Clone(f.Allowed), f.Default) {
			if v != "" && !parses(f.Type, v) {
				t.Errorf("%s %q: value %q (default or allowed) is not a valid %s", what, f.Name, v, f.Type)
			}
		}
		if f.Default != "" && len(f.Allowed) > 0 && !slices.Contains(f.Allowed, f.Default) {
			t.Errorf("%s %q: default %q is not among the allowed values %v", what, f.Name, f.Default, f.Allowed)
		}
	}
}

func parses(typ sdk.FieldType, v string) bool {
	switch typ {
	case sdk.Int:
		_, err := strconv.Atoi(v)
		return err == nil
	case sdk.Bool:
		_, err := strconv.ParseBool(v)
		return err == nil
	}
	return true
}

// badInput is one invalid variation of the valid inputs and the field the
// provider must name in its error.
type badInput struct {
	name   string
	inputs map[string]string
	field  string
}

func (k *kit) badInputs() []badInput {
	var out []badInput
	with := func(key, value string) map[string]string {
		m := maps.Clone(k.cfg.ValidInputs)
		if m == nil {
			m = map[string]string{}
		}
		m[key] = value
		return m
	}
	for _, f := range k.info.Schema {
		if f.Required {
			m := maps.Clone(k.cfg.ValidInputs)
			delete(m, f.Name)
			out = append(out, badInput{"missing required " + f.Name, m, f.Name})
		}
		if f.Type == sdk.Int || f.Type == sdk.Bool {
			out = append(out, badInput{"wrong type " + f.Name, with(f.Name, "not-a-"+string(f.Type)), f.Name})
		}
		if len(f.Allowed) > 0 && f.Type == sdk.String {
			out = append(out, badInput{"not allowed " + f.Name, with(f.Name, "sdktest-not-allowed"), f.Name})
		}
	}
	return append(out, badInput{"unknown input", with("sdktestUnknownInput", "x"), "sdktestUnknownInput"})
}

func (k *kit) validateFieldErrors(t *testing.T) {
	if k.info.Availability == sdk.Soon || !k.info.Has(sdk.CapValidate) {
		t.Skipf("provider does not declare %q; UndeclaredCallsUnimplemented checks its answer", sdk.CapValidate)
	}
	k.serverAccepts(t)
	for _, bad := range k.badInputs() {
		t.Run(bad.name, func(t *testing.T) {
			err := k.prov.Validate(k.ctx(t), sdk.ValidateRequest{Inputs: bad.inputs, Credentials: k.call.Credentials})
			if !errors.Is(err, sdk.ErrInvalidInput) {
				t.Fatalf("Validate(%v) = %v, want an sdk.InvalidInput error", bad.inputs, err)
			}
			want := "inputs." + bad.field
			for _, f := range sdk.FieldErrors(err) {
				if f.Field == want {
					if f.Message == "" {
						t.Errorf("field error for %s has no message", want)
					}
					return
				}
			}
			t.Errorf("Validate error %q does not name field %s", err, want)
		})
	}
}

func (k *kit) provisionIdempotent(t *testing.T) {
	if !k.info.Has(sdk.CapProvision) {
		t.Skipf("provider does not declare %q; UndeclaredCallsUnimplemented checks its answer", sdk.CapProvision)
	}
	k.serverAccepts(t)
	req := k.call.ProvisionRequest("sdktest-cluster-a")
	k.destroyAtEnd(t, "sdktest-cluster-a", "sdktest-cluster-b")
	first, err := k.prov.Provision(k.ctx(t), req)
	if err != nil {
		t.Fatalf("Provision: %v", err)
	}
	if first.ID == "" {
		t.Fatalf("Provision returned an empty operation ID")
	}
	again, err := k.prov.Provision(k.ctx(t), req)
	if err != nil {
		t.Fatalf("second Provision of the same cluster: %v", err)
	}
	if again.ID != first.ID {
		t.Errorf("Provision is not idempotent: the same cluster ID gave operations %q and %q", first.ID, again.ID)
	}
	req.ClusterID = "sdktest-cluster-b"
	other, err := k.prov.Provision(k.ctx(t), req)
	if err != nil {
		t.Fatalf("Provision of a second cluster: %v", err)
	}
	if other.ID == first.ID {
		t.Errorf("two clusters share operation ID %q", first.ID)
	}
	if k.info.Has(sdk.CapStatus) {
		st, err := k.prov.Status(k.ctx(t), sdk.StatusRequest{OperationID: first.ID, Credentials: k.call.Credentials})
		if err != nil {
			t.Fatalf("Status of the operation Provision returned: %v", err)
		}
		if !slices.Contains([]sdk.State{sdk.Pending, sdk.Running, sdk.Succeeded, sdk.Failed}, st.State) {
			t.Errorf("Status.State = %q, not a known state", st.State)
		}
		if st.Progress < 0 || st.Progress > 100 {
			t.Errorf("Status.Progress = %d, want 0..100", st.Progress)
		}
	}
}

func (k *kit) statusUnknown(t *testing.T) {
	if !k.info.Has(sdk.CapStatus) {
		t.Skipf("provider does not declare %q; UndeclaredCallsUnimplemented checks its answer", sdk.CapStatus)
	}
	_, err := k.prov.Status(k.ctx(t), sdk.StatusRequest{OperationID: "sdktest-no-such-operation", Credentials: k.call.Credentials})
	if !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("Status of an unknown operation = %v, want an sdk.NotFound error", err)
	}
}

// undeclaredUnimplemented calls every lifecycle method the provider does not
// declare: an AVAILABLE provider must answer Unimplemented, a SOON one
// FailedPrecondition, never an internal error.
func (k *kit) undeclaredUnimplemented(t *testing.T) {
	want, wantName := sdk.ErrUnimplemented, "Unimplemented"
	if k.info.Availability == sdk.Soon {
		want, wantName = sdk.ErrFailedPrecondition, "FailedPrecondition"
	}
	calls := map[sdk.Capability]func() error{
		sdk.CapValidate: func() error {
			return k.prov.Validate(k.ctx(t), sdk.ValidateRequest{Inputs: k.cfg.ValidInputs})
		},
		sdk.CapProvision: func() error {
			_, err := k.prov.Provision(k.ctx(t), sdk.ProvisionRequest{ClusterID: "sdktest-undeclared", Inputs: k.cfg.ValidInputs})
			return err
		},
		sdk.CapStatus: func() error {
			_, err := k.prov.Status(k.ctx(t), sdk.StatusRequest{OperationID: "sdktest-undeclared"})
			return err
		},
		sdk.CapKubeconfig: func() error {
			_, err := k.prov.Kubeconfig(k.ctx(t), sdk.KubeconfigRequest{OperationID: "sdktest-undeclared"})
			return err
		},
		sdk.CapDestroy: func() error {
			_, err := k.prov.Destroy(k.ctx(t), sdk.DestroyRequest{ClusterID: "sdktest-undeclared", Inputs: k.cfg.ValidInputs})
			return err
		},
		sdk.CapScale:   func() error { return k.updateUndeclared(t, sdk.CapScale) },
		sdk.CapUpgrade: func() error { return k.updateUndeclared(t, sdk.CapUpgrade) },
		sdk.CapEstimate: func() error {
			e, ok := k.prov.(sdk.Estimator)
			if !ok {
				return sdk.Unimplemented("the client has no Estimate")
			}
			_, err := e.Estimate(k.ctx(t), sdk.EstimateRequest{Inputs: k.cfg.ValidInputs})
			return err
		},
	}
	checked := 0
	for _, c := range []sdk.Capability{sdk.CapValidate, sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy, sdk.CapScale, sdk.CapUpgrade,
		sdk.CapEstimate} {
		if k.info.Has(c) {
			continue
		}
		checked++
		err := calls[c]()
		if (c == sdk.CapScale || c == sdk.CapUpgrade || c == sdk.CapEstimate) && errors.Is(err, sdk.ErrUnimplemented) {
			continue // what a plugin without sdk.Updater or sdk.Estimator answers, SOON or not
		}
		if !errors.Is(err, want) {
			t.Errorf("undeclared %s answered %v (kind %q), want %s", c, err, sdk.KindOf(err), wantName)
		}
	}
	if checked == 0 {
		t.Skip("provider declares every capability")
	}
}

// destroyAtEnd destroys the clusters named by ids when t ends, and follows
// each destroy to its end: a kit run leaves nothing behind, even with
// Config.SkipLifecycle (on a real cloud, every cluster left is billed).
func (k *kit) destroyAtEnd(t *testing.T, ids ...string) {
	t.Cleanup(func() {
		if !k.info.Has(sdk.CapDestroy) {
			t.Logf("the kit provisioned %v but the provider does not declare %q: if that made anything, delete it by hand", ids, sdk.CapDestroy)
			return
		}
		for _, id := range ids {
			op, err := k.prov.Destroy(k.ctx(t), k.call.DestroyRequest(id))
			if err != nil {
				t.Errorf("Destroy %s (provisioned by ProvisionIdempotent): %v; delete it by hand", id, err)
				continue
			}
			if k.info.Has(sdk.CapStatus) {
				if st := k.follow(t, "Destroy of "+id, op.ID); st.State != sdk.Succeeded {
					t.Errorf("Destroy %s ended %s: %s; delete it by hand", id, st.State, st.Message)
				}
			}
		}
	})
}

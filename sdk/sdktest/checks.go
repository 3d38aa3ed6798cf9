package sdktest

import (
	"errors"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
)

var fieldNameRE = regexp.MustCompile(`^[a-z][A-Za-z0-9]*$`)

func (k *kit) schemaSane(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range k.info.Schema {
		if !fieldNameRE.MatchString(f.Name) {
			t.Errorf("field %q: name must be lowerCamelCase letters and digits", f.Name)
		}
		if seen[f.Name] {
			t.Errorf("field %q is declared twice", f.Name)
		}
		seen[f.Name] = true
		if f.Type != sdk.String && f.Type != sdk.Int && f.Type != sdk.Bool {
			t.Errorf("field %q: type %q, want string, int or bool", f.Name, f.Type)
		}
		if f.Help == "" {
			t.Errorf("field %q has no help text", f.Name)
		}
		if f.Secret && f.Default != "" {
			t.Errorf("field %q is secret but has a default", f.Name)
		}
		if f.Required && f.Default != "" {
			t.Errorf("field %q is required but has a default, so it can never be missing", f.Name)
		}
		for _, v := range append(slices.Clone(f.Allowed), f.Default) {
			if v != "" && !parses(f.Type, v) {
				t.Errorf("field %q: value %q (default or allowed) is not a valid %s", f.Name, v, f.Type)
			}
		}
		if f.Default != "" && len(f.Allowed) > 0 && !slices.Contains(f.Allowed, f.Default) {
			t.Errorf("field %q: default %q is not among the allowed values %v", f.Name, f.Default, f.Allowed)
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
	if err := k.prov.Validate(k.ctx(t), sdk.ValidateRequest{Inputs: k.cfg.ValidInputs, Credentials: k.cfg.Credentials}); err != nil {
		t.Fatalf("Validate refused Config.ValidInputs: %v", err)
	}
	for _, bad := range k.badInputs() {
		t.Run(bad.name, func(t *testing.T) {
			err := k.prov.Validate(k.ctx(t), sdk.ValidateRequest{Inputs: bad.inputs, Credentials: k.cfg.Credentials})
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
	req := sdk.ProvisionRequest{ClusterID: "sdktest-cluster-a", Inputs: k.cfg.ValidInputs, Credentials: k.cfg.Credentials}
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
		st, err := k.prov.Status(k.ctx(t), sdk.StatusRequest{OperationID: first.ID, Credentials: k.cfg.Credentials})
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
	_, err := k.prov.Status(k.ctx(t), sdk.StatusRequest{OperationID: "sdktest-no-such-operation", Credentials: k.cfg.Credentials})
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
	}
	checked := 0
	for _, c := range []sdk.Capability{sdk.CapValidate, sdk.CapProvision, sdk.CapStatus, sdk.CapKubeconfig, sdk.CapDestroy} {
		if k.info.Has(c) {
			continue
		}
		checked++
		if err := calls[c](); !errors.Is(err, want) {
			t.Errorf("undeclared %s answered %v (kind %q), want %s", c, err, sdk.KindOf(err), wantName)
		}
	}
	if checked == 0 {
		t.Skip("provider declares every capability")
	}
}

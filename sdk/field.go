package sdk

// FieldType is the type of an input value. Values always travel as strings;
// the type says how the host and the dashboard parse and render them.
type FieldType string

// The input field types.
const (
	String FieldType = "string"
	Int    FieldType = "int"
	Bool   FieldType = "bool"
	// CredentialRef is the ID of a stored credential of one of the field's
	// CredentialKinds. The host resolves it and passes the credential's
	// fields in the request's Credentials, never in Inputs' value.
	CredentialRef FieldType = "credential"
)

// FieldTypes lists every FieldType.
var FieldTypes = []FieldType{String, Int, Bool, CredentialRef}

// InputField describes one input a provider takes, or one field of a
// credential kind. Everything but Name and Type is optional; the dashboard
// uses Label, Description, Order, Group and Multiline to lay out its form,
// and CheckInputs enforces Required, Allowed, Min, Max and Pattern.
type InputField struct {
	// Name is the key in the inputs map, e.g. "nodeCount".
	Name string
	Type FieldType
	// Default is used when the input is absent. Empty means no default.
	Default string
	// Required inputs without a default must be supplied.
	Required bool
	// Secret inputs are masked by the dashboard, never logged and never
	// stored in plain text: the host seals them and hands them to the
	// plugin only at call time.
	Secret bool
	// Allowed, when not empty, lists every value the field accepts.
	Allowed []string
	// Help is a sentence shown next to the field. It leaves out Min and
	// Max: hosts show them next to it (the dashboard as "(1 to 10)").
	Help string
	// Label is the field's title in a form, e.g. "Worker nodes"; the
	// dashboard falls back to Name.
	Label string
	// Description is a longer explanation shown on demand.
	Description string
	// Order sorts fields in a form (ascending; equal orders keep the
	// declaration order).
	Order int
	// Group puts fields under a heading, e.g. "Networking".
	Group string
	// Min and Max bound an Int field (inclusive) when set; see Bound.
	Min, Max *int64
	// Pattern is a regular expression (RE2, Go syntax) a String value must
	// match in full.
	Pattern string
	// Multiline asks for a text area, e.g. for a PEM key.
	Multiline bool
	// CredentialKinds lists the credential kinds a CredentialRef field
	// accepts.
	CredentialKinds []string
}

// Bound returns a pointer to n, for InputField.Min and Max.
func Bound(n int64) *int64 { return &n }

// CredentialKind describes a kind of stored credential, e.g. an access key
// pair. The host shows Fields as the form to create one, checks a new
// credential with CheckFields, seals it, and passes its fields (plus "kind")
// as Credentials to every call for a cluster that uses it. A field of type
// CredentialRef points at another stored credential (a role assumed with a
// key, say): the plugin receives that credential's fields too, each named
// <prefix><Field>, where prefix is the reference field's name without its
// "CredentialRef" suffix (sourceCredentialRef hands over
// sourceAccessKeyId).
type CredentialKind struct {
	// Name identifies the kind, e.g. "access_key"; it is unique among the
	// loaded plugins (two plugins may declare the same kind identically).
	Name string
	// DisplayName is what the dashboard shows, e.g. "Access key".
	DisplayName string
	// Help says where to get such a credential.
	Help   string
	Fields []InputField
	// Last4Field names the non-secret field whose last 4 characters are
	// shown to tell credentials apart; empty shows none.
	Last4Field string
}

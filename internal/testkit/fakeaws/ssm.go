package fakeaws

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Parameter types.
const (
	String       = "String"
	SecureString = "SecureString"
)

// Value size limits of the parameter tiers.
const (
	standardMax = 4096
	advancedMax = 8192
)

// Parameter is one SSM parameter as the fake stores it.
type Parameter struct {
	Name  string
	Type  string // String or SecureString
	Value string
	Tier  string
	// Version starts at 1 and grows on each overwrite.
	Version      int64
	LastModified time.Time
	// ciphertext is what GetParameter without decryption answers for a
	// SecureString: AWS answers the KMS ciphertext, base64-encoded.
	ciphertext string
}

// Appear says when a parameter put with PutLater becomes visible.
type Appear struct {
	// AfterCalls: the first AfterCalls GetParameter calls for the name
	// answer ParameterNotFound; the next one finds it.
	AfterCalls int
	// After: the parameter appears once this much time has passed.
	After time.Duration
}

type pending struct {
	p       Parameter
	calls   int
	visible time.Time
}

// SSM is a fake AWS Systems Manager Parameter Store speaking the JSON 1.1
// protocol: GetParameter, PutParameter, GetParametersByPath and
// DeleteParameters.
type SSM struct {
	iam *IAM

	mu        sync.Mutex
	params    map[string]Parameter
	pending   map[string]*pending
	calls     map[string]int
	throttles int
}

// NewSSM returns an SSM that accepts the keys of iam.
func NewSSM(iam *IAM) *SSM {
	return &SSM{iam: iam, params: map[string]Parameter{}, pending: map[string]*pending{}, calls: map[string]int{}}
}

// Put stores a parameter now, as PutParameter with Overwrite would.
func (s *SSM) Put(name, typ, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store(Parameter{Name: name, Type: typ, Value: value, Tier: "Standard"})
}

// PutLater stores a parameter that becomes visible as a says.
func (s *SSM) PutLater(name, typ, value string, a Appear) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending[name] = &pending{
		p:       Parameter{Name: name, Type: typ, Value: value, Tier: "Standard"},
		calls:   a.AfterCalls,
		visible: time.Now().Add(a.After),
	}
}

// Throttle makes the next n authenticated requests answer
// ThrottlingException.
func (s *SSM) Throttle(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.throttles = n
}

// Calls returns how many GetParameter calls for name were answered
// (throttled ones are not counted).
func (s *SSM) Calls(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[name]
}

// Get returns the stored parameter.
func (s *SSM) Get(name string) (Parameter, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.params[name]
	return p, ok
}

// ServeHTTP answers one JSON 1.1 request.
func (s *SSM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Method != http.MethodPost {
		jsonError(w, http.StatusBadRequest, "SerializationException", "requests are POSTs with a JSON body")
		return
	}
	p, region, aerr := s.iam.verifyHeader(r, body, "ssm", time.Now())
	if aerr != nil {
		jsonError(w, http.StatusBadRequest, ssmAuthCode(aerr.kind), aerr.msg)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-amz-json-1.1" {
		jsonError(w, http.StatusBadRequest, "UnknownOperationException", "unexpected Content-Type "+ct)
		return
	}
	if s.throttled() {
		jsonError(w, http.StatusBadRequest, "ThrottlingException", "Rate exceeded")
		return
	}
	switch r.Header.Get("X-Amz-Target") {
	case "AmazonSSM.GetParameter":
		s.getParameter(w, body, region, p.Account)
	case "AmazonSSM.PutParameter":
		s.putParameter(w, body)
	case "AmazonSSM.GetParametersByPath":
		s.getParametersByPath(w, body, region, p.Account)
	case "AmazonSSM.DeleteParameters":
		s.deleteParameters(w, body)
	default:
		jsonError(w, http.StatusBadRequest, "UnknownOperationException", "")
	}
}

func ssmAuthCode(k authFailure) string {
	switch k {
	case authMissing:
		return "MissingAuthenticationTokenException"
	case authIncomplete:
		return "IncompleteSignatureException"
	case authUnknownKey, authBadToken:
		return "UnrecognizedClientException"
	case authExpiredToken:
		return "ExpiredTokenException"
	default:
		return "InvalidSignatureException"
	}
}

func (s *SSM) throttled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.throttles > 0 {
		s.throttles--
		return true
	}
	return false
}

type getParameterInput struct {
	Name           string
	WithDecryption bool
}

type parameterOut struct {
	ARN              string
	DataType         string
	LastModifiedDate float64
	Name             string
	Type             string
	Value            string
	Version          int64
}

func (s *SSM) getParameter(w http.ResponseWriter, body []byte, region, account string) {
	var in getParameterInput
	if err := json.Unmarshal(body, &in); err != nil || in.Name == "" {
		jsonError(w, http.StatusBadRequest, "ValidationException", "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null")
		return
	}
	p, ok := s.lookup(in.Name)
	if !ok {
		jsonError(w, http.StatusBadRequest, "ParameterNotFound", "Parameter "+in.Name+" not found.")
		return
	}
	value := p.Value
	if p.Type == SecureString && !in.WithDecryption {
		value = p.ciphertext
	}
	writeJSON(w, map[string]any{"Parameter": parameterOut{
		ARN:      fmt.Sprintf("arn:aws:ssm:%s:%s:parameter/%s", region, account, strings.TrimPrefix(p.Name, "/")),
		DataType: "text", Name: p.Name, Type: p.Type, Value: value, Version: p.Version,
		LastModifiedDate: float64(p.LastModified.UnixMilli()) / 1000,
	}})
}

// lookup counts the call and returns the parameter, making a pending one
// visible when its time has come.
func (s *SSM) lookup(name string) (Parameter, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[name]++
	if pd, ok := s.pending[name]; ok && s.calls[name] > pd.calls && !time.Now().Before(pd.visible) {
		delete(s.pending, name)
		s.store(pd.p)
	}
	p, ok := s.params[name]
	return p, ok
}

type putParameterInput struct {
	Name      string
	Value     string
	Type      string
	Tier      string
	Overwrite bool
}

func (s *SSM) putParameter(w http.ResponseWriter, body []byte) {
	var in putParameterInput
	if err := json.Unmarshal(body, &in); err != nil || in.Name == "" {
		jsonError(w, http.StatusBadRequest, "ValidationException", "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null")
		return
	}
	if code, msg := checkPut(&in); code != "" {
		jsonError(w, http.StatusBadRequest, code, msg)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, exists := s.params[in.Name]
	if exists && !in.Overwrite {
		jsonError(w, http.StatusBadRequest, "ParameterAlreadyExists", "The parameter already exists. To overwrite this value, set the overwrite option in the request to true.")
		return
	}
	if in.Type == "" {
		if !exists {
			jsonError(w, http.StatusBadRequest, "ValidationException", "A parameter type is required when you create a parameter.")
			return
		}
		in.Type = old.Type
	}
	p := s.store(Parameter{Name: in.Name, Type: in.Type, Value: in.Value, Tier: in.Tier})
	writeJSON(w, map[string]any{"Tier": p.Tier, "Version": p.Version})
}

// checkPut applies SSM's type and size rules; Intelligent-Tiering picks the
// smallest tier that fits.
func checkPut(in *putParameterInput) (code, msg string) {
	if in.Type != "" && in.Type != String && in.Type != SecureString && in.Type != "StringList" {
		return "ValidationException", "1 validation error detected: Value '" + in.Type + "' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [SecureString, StringList, String]"
	}
	switch in.Tier {
	case "", "Standard":
		in.Tier = "Standard"
	case "Intelligent-Tiering":
		in.Tier = "Standard"
		if len(in.Value) > standardMax {
			in.Tier = "Advanced"
		}
	case "Advanced":
	default:
		return "ValidationException", "1 validation error detected: Value '" + in.Tier + "' at 'tier' failed to satisfy constraint: Member must satisfy enum value set: [Advanced, Intelligent-Tiering, Standard]"
	}
	if in.Tier == "Standard" && len(in.Value) > standardMax {
		return "ValidationException", fmt.Sprintf("Standard tier parameters support a maximum parameter value of %d characters. To create a larger parameter value, upgrade the parameter to use the advanced-parameter tier.", standardMax)
	}
	if len(in.Value) > advancedMax {
		return "ValidationException", fmt.Sprintf("Advanced tier parameters support a maximum parameter value of %d characters.", advancedMax)
	}
	return "", ""
}

// store saves p as the next version of its name. Callers hold s.mu.
func (s *SSM) store(p Parameter) Parameter {
	p.Version = s.params[p.Name].Version + 1
	p.LastModified = time.Now()
	if p.Type == SecureString {
		p.ciphertext = fakeCiphertext(p.Value)
	}
	s.params[p.Name] = p
	return p
}

// fakeCiphertext looks like a KMS ciphertext blob (AWS answers one, base64,
// for a SecureString read without decryption) and does not contain the
// plaintext.
func fakeCiphertext(plain string) string {
	blob := []byte{0x01, 0x02, 0x02, 0x00, 0x78}
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	sum := sha256.Sum256(append(nonce, plain...))
	blob = append(append(blob, nonce...), sum[:]...)
	return base64.StdEncoding.EncodeToString(blob)
}

func jsonError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-Requestid", requestID())
	w.WriteHeader(status)
	body := map[string]string{"__type": code}
	if msg != "" {
		body["message"] = msg
	}
	_ = json.NewEncoder(w).Encode(body)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-Requestid", requestID())
	_ = json.NewEncoder(w).Encode(v)
}

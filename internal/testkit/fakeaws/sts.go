package fakeaws

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

const stsNamespace = "https://sts.amazonaws.com/doc/2011-06-15/"

// Seen is one request the fake STS answered.
type Seen struct {
	Method string
	Host   string
	Action string
	// ClusterID is the x-k8s-aws-id header (EKS token verification).
	ClusterID string
	// Code is the AWS error code answered, "" on success.
	Code string
}

// STS is a fake AWS Security Token Service speaking the query protocol:
// GetCallerIdentity (header-signed POST, or presigned GET as EKS token
// verifiers send) and AssumeRole. It answers XML, or JSON when the client
// sends Accept: application/json, as STS does.
type STS struct {
	// RequireSignedHeader, when set, must be among the X-Amz-SignedHeaders
	// of a presigned GET, or the GET is refused (400 IncompleteSignature).
	// NewSTS sets it to x-k8s-aws-id: the only presigned GETs a test sends
	// are EKS tokens, which must sign it. Real STS does not insist; EKS's
	// authenticator does, before it calls STS.
	RequireSignedHeader string

	iam *IAM

	mu   sync.Mutex
	seen []Seen
}

// NewSTS returns an STS that accepts the keys of iam.
func NewSTS(iam *IAM) *STS { return &STS{iam: iam, RequireSignedHeader: "x-k8s-aws-id"} }

// Seen returns the requests answered so far.
func (s *STS) Seen() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Seen(nil), s.seen...)
}

// ServeHTTP answers one query-protocol request.
func (s *STS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Seen{Method: r.Method, Host: r.Host, ClusterID: r.Header.Get("x-k8s-aws-id")}
	rw := &stsWriter{w: w, json: strings.Contains(r.Header.Get("Accept"), "application/json"), code: &rec.Code}
	defer func() {
		s.mu.Lock()
		s.seen = append(s.seen, rec)
		s.mu.Unlock()
	}()
	params, p, aerr := s.authenticate(r)
	rec.Action = params.Get("Action")
	if aerr != nil {
		code, status := stsAuthCode(aerr.kind)
		rw.error(status, code, aerr.msg)
		return
	}
	if v := params.Get("Version"); v != "2011-06-15" {
		rw.error(http.StatusBadRequest, "InvalidAction", "Could not find operation "+rec.Action+" for version "+v)
		return
	}
	switch rec.Action {
	case "GetCallerIdentity":
		rw.ok("GetCallerIdentity", callerIdentity{Arn: p.ARN, UserID: p.UserID, Account: p.Account})
	case "AssumeRole":
		if r.Method != http.MethodPost {
			rw.error(http.StatusBadRequest, "InvalidAction", "AssumeRole is not accepted as a presigned URL here")
			return
		}
		s.assumeRole(rw, params, p)
	default:
		rw.error(http.StatusBadRequest, "InvalidAction", "Could not find operation "+rec.Action+" for version 2011-06-15")
	}
}

// authenticate reads the parameters of a POST form or a presigned GET and
// checks its signature.
func (s *STS) authenticate(r *http.Request) (url.Values, Principal, *authError) {
	now := time.Now()
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		p, _, aerr := s.iam.verifyPresigned(r, "sts", now)
		if aerr == nil && s.RequireSignedHeader != "" && !contains(strings.Split(q.Get("X-Amz-SignedHeaders"), ";"), s.RequireSignedHeader) {
			aerr = &authError{authIncomplete, "the presigned URL does not sign the " + s.RequireSignedHeader + " header"}
		}
		return q, p, aerr
	case http.MethodPost:
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return url.Values{}, Principal{}, &authError{authIncomplete, "cannot read body"}
		}
		params, err := url.ParseQuery(string(body))
		if err != nil {
			return url.Values{}, Principal{}, &authError{authIncomplete, "malformed form body"}
		}
		p, _, aerr := s.iam.verifyHeader(r, body, "sts", now)
		return params, p, aerr
	default:
		return url.Values{}, Principal{}, &authError{authMissing, "Request is missing Authentication Token"}
	}
}

func stsAuthCode(k authFailure) (string, int) {
	switch k {
	case authMissing:
		return "MissingAuthenticationToken", http.StatusForbidden
	case authIncomplete:
		return "IncompleteSignature", http.StatusBadRequest
	case authUnknownKey, authBadToken:
		return "InvalidClientTokenId", http.StatusForbidden
	case authExpiredToken:
		return "ExpiredToken", http.StatusForbidden
	default: // a bad or expired signature
		return "SignatureDoesNotMatch", http.StatusForbidden
	}
}

func (s *STS) assumeRole(rw *stsWriter, params url.Values, caller Principal) {
	role, ok := s.iam.role(params.Get("RoleArn"))
	if !ok || role.ExternalID != params.Get("ExternalId") {
		rw.error(http.StatusForbidden, "AccessDenied", "User: "+caller.ARN+
			" is not authorized to perform: sts:AssumeRole on resource: "+params.Get("RoleArn"))
		return
	}
	session := params.Get("RoleSessionName")
	if session == "" {
		rw.error(http.StatusBadRequest, "ValidationError", "1 validation error detected: Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null")
		return
	}
	lifetime := time.Hour
	if d, err := strconv.Atoi(params.Get("DurationSeconds")); err == nil && d > 0 {
		lifetime = time.Duration(d) * time.Second
	}
	if limit := max(role.MaxSession, time.Hour); lifetime > limit {
		rw.error(http.StatusBadRequest, "ValidationError",
			"The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
		return
	}
	p := s.iam.assume(role, session, lifetime)
	rw.ok("AssumeRole", assumeRoleResult{
		AssumedRoleUser: assumedRoleUser{Arn: p.ARN, AssumedRoleID: p.UserID},
		Credentials: stsCredentials{
			AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey,
			SessionToken: p.SessionToken, Expiration: p.Expires.UTC().Format(time.RFC3339),
		},
	})
}

type callerIdentity struct {
	Arn     string `xml:"Arn" json:"Arn"`
	UserID  string `xml:"UserId" json:"UserId"`
	Account string `xml:"Account" json:"Account"`
}

type assumedRoleUser struct {
	Arn           string `xml:"Arn" json:"Arn"`
	AssumedRoleID string `xml:"AssumedRoleId" json:"AssumedRoleId"`
}

type stsCredentials struct {
	AccessKeyID     string `xml:"AccessKeyId" json:"AccessKeyId"`
	SecretAccessKey string `xml:"SecretAccessKey" json:"SecretAccessKey"`
	SessionToken    string `xml:"SessionToken" json:"SessionToken"`
	Expiration      string `xml:"Expiration" json:"Expiration"`
}

type assumeRoleResult struct {
	AssumedRoleUser assumedRoleUser `xml:"AssumedRoleUser" json:"AssumedRoleUser"`
	Credentials     stsCredentials  `xml:"Credentials" json:"Credentials"`
}

// stsWriter writes query-protocol answers as XML or JSON.
type stsWriter struct {
	w    http.ResponseWriter
	json bool
	code *string
}

type responseMetadata struct {
	RequestID string `xml:"RequestId" json:"RequestId"`
}

// ok writes <ActionResponse><ActionResult>result</ActionResult>...</ActionResponse>.
func (rw *stsWriter) ok(action string, result any) {
	id := requestID()
	rw.w.Header().Set("X-Amzn-Requestid", id)
	if rw.json {
		rw.w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw.w).Encode(map[string]any{action + "Response": map[string]any{
			action + "Result": result, "ResponseMetadata": responseMetadata{id},
		}})
		return
	}
	rw.w.Header().Set("Content-Type", "text/xml")
	_, _ = io.WriteString(rw.w, xml.Header)
	enc := xml.NewEncoder(rw.w)
	start := xml.StartElement{Name: xml.Name{Local: action + "Response"},
		Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: stsNamespace}}}
	_ = enc.EncodeToken(start)
	_ = enc.EncodeElement(result, xml.StartElement{Name: xml.Name{Local: action + "Result"}})
	_ = enc.EncodeElement(responseMetadata{id}, xml.StartElement{Name: xml.Name{Local: "ResponseMetadata"}})
	_ = enc.EncodeToken(start.End())
	_ = enc.Flush()
}

type stsErrorBody struct {
	Type    string `xml:"Type" json:"Type"`
	Code    string `xml:"Code" json:"Code"`
	Message string `xml:"Message" json:"Message"`
}

// error writes STS's error document.
func (rw *stsWriter) error(status int, code, msg string) {
	*rw.code = code
	id := requestID()
	rw.w.Header().Set("X-Amzn-Requestid", id)
	body := stsErrorBody{Type: "Sender", Code: code, Message: msg}
	if rw.json {
		rw.w.Header().Set("Content-Type", "application/json")
		rw.w.WriteHeader(status)
		_ = json.NewEncoder(rw.w).Encode(map[string]any{"Error": body, "RequestId": id})
		return
	}
	rw.w.Header().Set("Content-Type", "text/xml")
	rw.w.WriteHeader(status)
	doc := struct {
		XMLName   xml.Name     `xml:"ErrorResponse"`
		NS        string       `xml:"xmlns,attr"`
		Error     stsErrorBody `xml:"Error"`
		RequestID string       `xml:"RequestId"`
	}{NS: stsNamespace, Error: body, RequestID: id}
	_, _ = io.WriteString(rw.w, xml.Header)
	_ = xml.NewEncoder(rw.w).Encode(doc)
}

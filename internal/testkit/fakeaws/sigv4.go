package fakeaws

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// This file checks SigV4 signatures the way AWS does: it rebuilds the
// request from what the client said it signed and signs it again with the
// secret of the named key, using aws-sdk-go-v2's own signer.

// authFailure says why a request was not authenticated; each service turns
// it into its own error code.
type authFailure int

const (
	authMissing          authFailure = iota + 1 // no signature at all
	authIncomplete                              // a signature part is missing or malformed
	authUnknownKey                              // no such access key
	authBadToken                                // session token missing or wrong
	authExpiredToken                            // temporary credentials expired
	authBadSignature                            // signature mismatch
	authSignatureExpired                        // signed too long ago (or in the future)
)

type authError struct {
	kind authFailure
	msg  string
}

// skew is how far a header signature's time may be from now, and how long a
// presigned STS URL lives: STS ignores X-Amz-Expires and accepts a presigned
// URL for 15 minutes after X-Amz-Date (aws/aws-sdk-go#2167; the reason EKS
// tokens live 15 minutes).
const skew = 15 * time.Minute

const (
	algorithm        = "AWS4-HMAC-SHA256"
	amzDateFormat    = "20060102T150405Z"
	emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
)

// sigParts is what a client says about its signature.
type sigParts struct {
	accessKeyID, date, region, service string
	signedHeaders                      []string
	signature                          string
	amzDate                            string
	token                              string
}

// verifyHeader authenticates a request signed in its Authorization header.
func (i *IAM) verifyHeader(r *http.Request, body []byte, service string, now time.Time) (Principal, string, *authError) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return Principal{}, "", &authError{authMissing, "Missing Authentication Token"}
	}
	sp, aerr := parseAuthorization(auth)
	if aerr != nil {
		return Principal{}, "", aerr
	}
	sp.amzDate = r.Header.Get("X-Amz-Date")
	sp.token = r.Header.Get("X-Amz-Security-Token")
	p, signedAt, aerr := i.checkParts(sp, service, now, skew)
	if aerr != nil {
		return Principal{}, "", aerr
	}
	recon := rebuild(r, sp.signedHeaders, r.URL.RawQuery)
	if contains(sp.signedHeaders, "content-length") {
		recon.ContentLength = r.ContentLength
	}
	sum := sha256.Sum256(body)
	err := v4.NewSigner().SignHTTP(context.Background(), awsCredentials(p), recon, hex.EncodeToString(sum[:]),
		sp.service, sp.region, signedAt)
	if err != nil {
		return Principal{}, "", &authError{authIncomplete, err.Error()}
	}
	got, aerr := parseAuthorization(recon.Header.Get("Authorization"))
	if aerr != nil {
		return Principal{}, "", aerr
	}
	if !sameSignature(sp, got) {
		return Principal{}, "", mismatch(recon, sp)
	}
	return p, sp.region, nil
}

// verifyPresigned authenticates a request signed in its query string.
func (i *IAM) verifyPresigned(r *http.Request, service string, now time.Time) (Principal, string, *authError) {
	q := r.URL.Query()
	if q.Get("X-Amz-Signature") == "" && q.Get("X-Amz-Credential") == "" {
		return Principal{}, "", &authError{authMissing, "Request is missing Authentication Token"}
	}
	var missing []string
	for _, k := range []string{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Signature"} {
		if q.Get(k) == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Principal{}, "", &authError{authIncomplete, "AWS query-string parameters missing: " + strings.Join(missing, ", ")}
	}
	if q.Get("X-Amz-Algorithm") != algorithm {
		return Principal{}, "", &authError{authIncomplete, "Unsupported AWS 'algorithm': " + q.Get("X-Amz-Algorithm")}
	}
	if n, err := strconv.Atoi(q.Get("X-Amz-Expires")); err != nil || n < 0 {
		return Principal{}, "", &authError{authIncomplete, "X-Amz-Expires must be a non-negative integer"}
	}
	sp, aerr := parseCredential(q.Get("X-Amz-Credential"))
	if aerr != nil {
		return Principal{}, "", aerr
	}
	sp.signedHeaders = strings.Split(q.Get("X-Amz-SignedHeaders"), ";")
	sp.signature = q.Get("X-Amz-Signature")
	sp.amzDate = q.Get("X-Amz-Date")
	sp.token = q.Get("X-Amz-Security-Token")
	p, signedAt, aerr := i.checkParts(sp, service, now, skew)
	if aerr != nil {
		return Principal{}, "", aerr
	}
	q.Del("X-Amz-Signature")
	recon := rebuild(r, sp.signedHeaders, q.Encode())
	signed, _, err := v4.NewSigner().PresignHTTP(context.Background(), awsCredentials(p), recon, emptyPayloadHash,
		sp.service, sp.region, signedAt)
	if err != nil {
		return Principal{}, "", &authError{authIncomplete, err.Error()}
	}
	su, err := url.Parse(signed)
	if err != nil {
		return Principal{}, "", &authError{authIncomplete, err.Error()}
	}
	got := sigParts{
		signedHeaders: strings.Split(su.Query().Get("X-Amz-SignedHeaders"), ";"),
		signature:     su.Query().Get("X-Amz-Signature"),
	}
	if !sameSignature(sp, got) {
		return Principal{}, "", mismatch(recon, sp)
	}
	return p, sp.region, nil
}

// checkParts looks up the key and checks token, time and scope. A signing
// time more than window before now (or after it) is refused.
func (i *IAM) checkParts(sp sigParts, service string, now time.Time, window time.Duration) (Principal, time.Time, *authError) {
	p, ok := i.key(sp.accessKeyID)
	if !ok {
		return Principal{}, time.Time{}, &authError{authUnknownKey, "The security token included in the request is invalid."}
	}
	if sp.token != p.SessionToken {
		return Principal{}, time.Time{}, &authError{authBadToken, "The security token included in the request is invalid."}
	}
	if !p.Expires.IsZero() && now.After(p.Expires) {
		return Principal{}, time.Time{}, &authError{authExpiredToken, "The security token included in the request is expired"}
	}
	signedAt, err := time.Parse(amzDateFormat, sp.amzDate)
	if err != nil {
		return Principal{}, time.Time{}, &authError{authIncomplete, "Date must be in ISO-8601 'basic format'. Got '" + sp.amzDate + "'."}
	}
	if signedAt.Format("20060102") != sp.date {
		return Principal{}, time.Time{}, &authError{authBadSignature, "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '" + sp.date + "' != '" + signedAt.Format("20060102") + "'"}
	}
	now = now.UTC()
	if signedAt.Before(now.Add(-window)) {
		return Principal{}, time.Time{}, &authError{authSignatureExpired, fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - %d min.)",
			sp.amzDate, now.Add(-window).Format(amzDateFormat), now.Format(amzDateFormat), int(window.Minutes()))}
	}
	if signedAt.After(now.Add(window)) {
		return Principal{}, time.Time{}, &authError{authSignatureExpired, fmt.Sprintf("Signature not yet current: %s is still later than %s (%s + %d min.)",
			sp.amzDate, now.Add(window).Format(amzDateFormat), now.Format(amzDateFormat), int(window.Minutes()))}
	}
	if sp.service != service {
		return Principal{}, time.Time{}, &authError{authBadSignature, "Credential should be scoped to correct service: '" + service + "'. "}
	}
	return p, signedAt, nil
}

// parseAuthorization reads "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...".
func parseAuthorization(h string) (sigParts, *authError) {
	alg, rest, _ := strings.Cut(h, " ")
	if alg != algorithm {
		return sigParts{}, &authError{authIncomplete, "Unsupported AWS 'algorithm': '" + alg + "'"}
	}
	fields := map[string]string{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		fields[k] = v
	}
	for _, k := range []string{"Credential", "SignedHeaders", "Signature"} {
		if fields[k] == "" {
			return sigParts{}, &authError{authIncomplete, "Authorization header requires '" + k + "' parameter. Authorization=" + alg}
		}
	}
	sp, aerr := parseCredential(fields["Credential"])
	if aerr != nil {
		return sigParts{}, aerr
	}
	sp.signedHeaders = strings.Split(fields["SignedHeaders"], ";")
	sp.signature = fields["Signature"]
	return sp, nil
}

// parseCredential reads "AKID/20240101/eu-north-1/sts/aws4_request".
func parseCredential(c string) (sigParts, *authError) {
	parts := strings.Split(c, "/")
	if len(parts) != 5 || parts[4] != "aws4_request" {
		return sigParts{}, &authError{authIncomplete, "Credential should be scoped to a valid region, date, service and terminated by 'aws4_request'."}
	}
	return sigParts{accessKeyID: parts[0], date: parts[1], region: parts[2], service: parts[3]}, nil
}

// rebuild makes a request with only the headers the client signed, as the
// signer must see it.
func rebuild(r *http.Request, signedHeaders []string, rawQuery string) *http.Request {
	recon := &http.Request{
		Method: r.Method,
		URL:    &url.URL{Scheme: "https", Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: rawQuery},
		Host:   r.Host,
		Header: http.Header{},
	}
	for _, h := range signedHeaders {
		if h == "host" || h == "content-length" {
			continue
		}
		key := textproto.CanonicalMIMEHeaderKey(h)
		if v, ok := r.Header[key]; ok {
			recon.Header[key] = v
		}
	}
	return recon
}

func sameSignature(want, got sigParts) bool {
	return strings.Join(want.signedHeaders, ";") == strings.Join(got.signedHeaders, ";") &&
		hmac.Equal([]byte(want.signature), []byte(got.signature))
}

// mismatch says the signature does not match, with the canonical request as
// AWS spells it out (it carries the session token, as AWS's does: callers
// must not print AWS's message verbatim).
func mismatch(recon *http.Request, sp sigParts) *authError {
	msg := "The request signature we calculated does not match the signature you provided. " +
		"Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
	if sp.token != "" {
		msg += "\n\nThe Canonical String for this request should have been\n'" + recon.Method + "\n" +
			recon.URL.EscapedPath() + "\n" + recon.URL.RawQuery + "\nhost:" + recon.Host +
			"\nx-amz-security-token:" + sp.token + "\n'"
	}
	return &authError{authBadSignature, msg}
}

func awsCredentials(p Principal) aws.Credentials {
	return aws.Credentials{AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, SessionToken: p.SessionToken}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

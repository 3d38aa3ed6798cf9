package federation

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Reason is what a viewer is told when a call to a cluster failed. When
// the cluster's API server (any URL an admin configured) answered, that is
// its HTTP status, never the text it sent; an answer that is not a
// Kubernetes API response is said to be one. Errors made on this side
// (timeouts, refused connections, missing settings) keep their wording.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code != 0 {
		code := int(status.Status().Code)
		return prefix(msg, status.(error).Error()) + fmt.Sprintf("the API server answered %d %s", code, http.StatusText(code))
	}
	for _, marker := range decodeMarkers {
		if i := strings.Index(msg, marker); i >= 0 {
			return "the answer was not a Kubernetes API response"
		}
	}
	return msg
}

// decodeMarkers appear in client-go's errors for an answer it could not
// decode, which quote the answer.
var decodeMarkers = []string{"couldn't get version/kind", "invalid character", "json:", "yaml:", "unexpected end of JSON",
	"cannot unmarshal", "<"}

// prefix returns the context wrapped around inner in msg ("list nodes: "),
// or "" when msg does not end with it.
func prefix(msg, inner string) string {
	if p, ok := strings.CutSuffix(msg, inner); ok {
		return p
	}
	return ""
}

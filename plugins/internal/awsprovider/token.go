package awsprovider

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// minTokenLife is the least a published token must have left to be handed
// out: the host renews 4 minutes before the expiry we report, so a token
// nearer its end would be renewed at once, again and again.
const minTokenLife = 5 * time.Minute

// tokenExpiry reads when the bearer token of a kubeconfig's current user
// expires, from the token's own exp claim (a ServiceAccount token is a
// JWT). ok is false when the user has no token (a kubeconfig published by
// an older bootstrap, with a client certificate); the signature is not
// checked: the API server does that, this only schedules the renewal.
func tokenExpiry(data []byte) (exp time.Time, ok bool, err error) {
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("the published kubeconfig does not parse: %w", err)
	}
	ctx, found := cfg.Contexts[cfg.CurrentContext]
	if !found {
		return time.Time{}, false, nil
	}
	user, found := cfg.AuthInfos[ctx.AuthInfo]
	if !found || user.Token == "" {
		return time.Time{}, false, nil
	}
	parts := strings.Split(user.Token, ".")
	if len(parts) != 3 {
		return time.Time{}, false, fmt.Errorf("the published kubeconfig's token is not a JWT (%d parts)", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if err == nil {
		err = json.Unmarshal(payload, &claims)
	}
	if err != nil || claims.Exp == 0 {
		return time.Time{}, false, fmt.Errorf("the published kubeconfig's token has no readable exp claim")
	}
	return time.Unix(claims.Exp, 0), true, nil
}

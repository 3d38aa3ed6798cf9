package testoidc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"

	jose "github.com/go-jose/go-jose/v4"
)

// reissue serves the token endpoint and, while SetAudience is in force,
// hands out the ID token re-signed with the provider's own key for the
// other audience (the op itself always names the client that asked).
func (p *Provider) reissue(next http.Handler, st *storage) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		aud := p.audience
		p.mu.Unlock()
		if aud == nil {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if rec.Code == http.StatusOK {
			if b, err := withAudience(body, aud, st); err == nil {
				body = b
			}
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

func withAudience(body []byte, aud []string, st *storage) ([]byte, error) {
	var resp map[string]any
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, err
	}
	raw, _ := resp["id_token"].(string)
	jws, err := jose.ParseSignedCompact(raw, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return nil, err
	}
	var claims map[string]any
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &claims); err != nil {
		return nil, err
	}
	claims["aud"], claims["azp"] = aud, aud[0]
	payload, err := json.Marshal(claims)
	if err != nil {
		return nil, err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: st.key},
		(&jose.SignerOptions{}).WithHeader("kid", st.kid).WithType("JWT"))
	if err != nil {
		return nil, err
	}
	signed, err := signer.Sign(payload)
	if err != nil {
		return nil, err
	}
	if resp["id_token"], err = signed.CompactSerialize(); err != nil {
		return nil, err
	}
	return json.Marshal(resp)
}

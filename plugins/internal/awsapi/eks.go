package awsapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Token is an EKS bearer token: a presigned sts:GetCallerIdentity URL that
// the cluster's authenticator calls to learn who the bearer is.
type Token struct {
	Value string
	// Expiration is when to stop using the token: 14 minutes after signing
	// (STS honours the URL for 15), or earlier when the credentials that
	// signed it expire sooner.
	Expiration time.Time
}

const (
	tokenPrefix     = "k8s-aws-v1."
	clusterIDHeader = "x-k8s-aws-id"
	tokenLifetime   = 14 * time.Minute
	// presignExpires is the X-Amz-Expires every EKS token carries; STS
	// ignores it, authenticators up to 0.3.0 wanted 0-60.
	presignExpires = "60"
)

// EKSToken mints a bearer token for the EKS cluster clusterName with cfg's
// credentials, as `aws eks get-token` does: GetCallerIdentity presigned for
// the STS endpoint cfg resolves to (regional, sts.<region>.amazonaws.com,
// unless AWS_ENDPOINT_URL_STS overrides it), signing the x-k8s-aws-id
// header, base64url-encoded behind "k8s-aws-v1.".
func EKSToken(ctx context.Context, cfg aws.Config, clusterName string) (Token, error) {
	return eksToken(ctx, cfg, clusterName, time.Now())
}

// eksToken is EKSToken signing at a given time.
func eksToken(ctx context.Context, cfg aws.Config, clusterName string, signedAt time.Time) (Token, error) {
	if clusterName == "" {
		return Token{}, errors.New("mint an EKS token: the cluster name is empty")
	}
	presigner := sts.NewPresignClient(sts.NewFromConfig(cfg), func(o *sts.PresignOptions) {
		o.Presigner = signAt{signer: v4.NewSigner(), at: signedAt}
	})
	req, err := presigner.PresignGetCallerIdentity(ctx, &sts.GetCallerIdentityInput{},
		sts.WithPresignClientFromClientOptions(sts.WithAPIOptions(
			smithyhttp.SetHeaderValue(clusterIDHeader, clusterName),
			smithyhttp.SetHeaderValue("X-Amz-Expires", presignExpires), // hoisted into the query by the signer
		)))
	if err != nil {
		return Token{}, classify(err, "mint an EKS token")
	}
	tok := Token{
		Value:      tokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(req.URL)),
		Expiration: signedAt.Add(tokenLifetime),
	}
	// The presign just retrieved the credentials; this reads the cache.
	if cfg.Credentials != nil {
		if creds, err := cfg.Credentials.Retrieve(ctx); err == nil && creds.CanExpire && creds.Expires.Before(tok.Expiration) {
			tok.Expiration = creds.Expires
		}
	}
	return tok, nil
}

// signAt is the SDK's SigV4 presigner with the signing time fixed (the
// presign middleware passes its own clock's time).
type signAt struct {
	signer *v4.Signer
	at     time.Time
}

func (s signAt) PresignHTTP(ctx context.Context, creds aws.Credentials, r *http.Request, payloadHash, service, region string,
	_ time.Time, optFns ...func(*v4.SignerOptions)) (string, http.Header, error) {
	return s.signer.PresignHTTP(ctx, creds, r, payloadHash, service, region, s.at, optFns...)
}

// EKSKubeconfig returns a kubeconfig for the EKS cluster clusterName with
// tok as a bearer token (no exec plugin: KubeOpera refuses exec
// kubeconfigs). endpoint is the cluster's API URL and caData its
// certificate authority as EKS reports it (base64 of PEM). The cluster,
// user and context are all named clusterName.
func EKSKubeconfig(clusterName, endpoint string, caData []byte, tok Token) ([]byte, error) {
	if clusterName == "" {
		return nil, errors.New("eks kubeconfig: the cluster name is empty")
	}
	if u, err := url.Parse(endpoint); err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("eks kubeconfig for %q: endpoint %q is not an https URL like https://ABC.gr7.eu-north-1.eks.amazonaws.com", clusterName, endpoint)
	}
	ca, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(caData)))
	if err != nil {
		return nil, fmt.Errorf("eks kubeconfig for %q: certificate authority data is not base64 (as EKS's certificateAuthority.data is): %w", clusterName, err)
	}
	if block, _ := pem.Decode(ca); block == nil || block.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("eks kubeconfig for %q: certificate authority data does not hold a PEM certificate", clusterName)
	}
	if tok.Value == "" {
		return nil, fmt.Errorf("eks kubeconfig for %q: the token is empty", clusterName)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters[clusterName] = &clientcmdapi.Cluster{Server: endpoint, CertificateAuthorityData: ca}
	kc.AuthInfos[clusterName] = &clientcmdapi.AuthInfo{Token: tok.Value}
	kc.Contexts[clusterName] = &clientcmdapi.Context{Cluster: clusterName, AuthInfo: clusterName}
	kc.CurrentContext = clusterName
	data, err := clientcmd.Write(*kc)
	if err != nil {
		return nil, fmt.Errorf("eks kubeconfig for %q: serialise: %w", clusterName, err)
	}
	return data, nil
}

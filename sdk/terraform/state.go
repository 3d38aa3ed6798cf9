package terraform

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// endsWithNumber matches what terraform's kubernetes backend refuses at
// the end of secret_suffix ("secret_suffix must not end with '-<number>'").
var endsWithNumber = regexp.MustCompile(`-[0-9]+$`)

// StateSuffix is the kubernetes backend's secret_suffix for cluster id:
// the ID itself, or the ID plus ".state" when it ends with "-<number>"
// (e.g. "prod-1"), which the backend refuses. IDs hold no ".", so the
// mapping is one-to-one.
func StateSuffix(id string) string {
	if endsWithNumber.MatchString(id) {
		return id + ".state"
	}
	return id
}

// StateSecretName is the Secret in which terraform's kubernetes backend
// keeps the state of the default workspace for secretSuffix (KubeOpera
// uses StateSuffix of the cluster ID). The backend's lock is the Lease
// "lock-" + StateSecretName(suffix).
func StateSecretName(secretSuffix string) string { return "tfstate-default-" + secretSuffix }

// state is the part of a terraform state (format version 4) KubeOpera reads.
type state struct {
	Version   int                    `json:"version"`
	Serial    int                    `json:"serial"`
	Outputs   map[string]stateOutput `json:"outputs"`
	Resources []json.RawMessage      `json:"resources"`
}

type stateOutput struct {
	Value     json.RawMessage `json:"value"`
	Sensitive bool            `json:"sensitive"`
}

// StateOutputs reads the root outputs (sensitive ones included) from the
// state the kubernetes backend keeps in namespace for secretSuffix, as
// the Job executor and a Local executor configured with the kubernetes
// backend leave it. A missing state is an sdk.NotFound error.
func StateOutputs(ctx context.Context, client *Kube, namespace, secretSuffix string) (map[string]json.RawMessage, error) {
	st, err := readState(ctx, client, namespace, secretSuffix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(st.Outputs))
	for k, o := range st.Outputs {
		out[k] = o.Value
	}
	return out, nil
}

func readState(ctx context.Context, client *Kube, namespace, secretSuffix string) (state, error) {
	name := StateSecretName(secretSuffix)
	sec, err := client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return state{}, sdk.NotFound("no terraform state for cluster %q: secret %s/%s does not exist", secretSuffix, namespace, name)
	}
	if err != nil {
		return state{}, fmt.Errorf("read terraform state secret %s/%s: %w", namespace, name, err)
	}
	st, err := decodeState(sec.Data["tfstate"])
	if err != nil {
		return state{}, fmt.Errorf("terraform state secret %s/%s: %w", namespace, name, err)
	}
	return st, nil
}

// decodeState parses the data key "tfstate" of a state Secret: JSON,
// gzip-compressed when the Secret is annotated encoding=gzip (terraform
// always compresses, so the magic bytes decide).
func decodeState(data []byte) (state, error) {
	if len(data) == 0 {
		return state{}, fmt.Errorf("data key tfstate is empty")
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return state{}, fmt.Errorf("gunzip tfstate: %w", err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return state{}, fmt.Errorf("gunzip tfstate: %w", err)
		}
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return state{}, fmt.Errorf("parse tfstate JSON: %w", err)
	}
	return st, nil
}

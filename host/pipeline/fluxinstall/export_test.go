package fluxinstall

import (
	"log/slog"

	"helm.sh/helm/v3/pkg/action"
	"k8s.io/client-go/rest"
)

// ActionConfig lets the external tests read and alter Helm's release
// records the way Install sees them.
func ActionConfig(restConfig *rest.Config, namespace string) (*action.Configuration, error) {
	return actionConfig(restConfig, namespace, slog.New(slog.DiscardHandler))
}

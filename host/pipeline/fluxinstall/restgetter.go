package fluxinstall

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// restClientGetter is a genericclioptions.RESTClientGetter over an in-memory
// *rest.Config: Helm gets its clients from it instead of a kubeconfig file
// and the environment. Discovery is cached in memory for the getter's life,
// one Install, and shared so that Helm's invalidation reaches the mapper.
type restClientGetter struct {
	config    *rest.Config
	namespace string

	once      sync.Once
	discovery discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
	err       error
}

// Client-side rate limits for Helm: client-go's defaults (5 QPS, burst 10)
// throttle discovery and the creation of a chart's two dozen objects.
const (
	helmQPS   = 50
	helmBurst = 100
)

func newRESTClientGetter(config *rest.Config, namespace string) *restClientGetter {
	c := rest.CopyConfig(config)
	if c.QPS == 0 {
		c.QPS = helmQPS
	}
	if c.Burst == 0 {
		c.Burst = helmBurst
	}
	return &restClientGetter{config: c, namespace: namespace}
}

// ToRESTConfig returns a copy, so no caller changes the getter's config.
func (g *restClientGetter) ToRESTConfig() (*rest.Config, error) {
	return rest.CopyConfig(g.config), nil
}

func (g *restClientGetter) init() {
	g.once.Do(func() {
		dc, err := discovery.NewDiscoveryClientForConfig(g.config)
		if err != nil {
			g.err = err
			return
		}
		g.discovery = memory.NewMemCacheClient(dc)
		deferred := restmapper.NewDeferredDiscoveryRESTMapper(g.discovery)
		g.mapper = restmapper.NewShortcutExpander(deferred, g.discovery, nil)
	})
}

func (g *restClientGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	g.init()
	return g.discovery, g.err
}

func (g *restClientGetter) ToRESTMapper() (meta.RESTMapper, error) {
	g.init()
	return g.mapper, g.err
}

// ToRawKubeConfigLoader serves the namespace; Helm's clients come from
// ToRESTConfig.
func (g *restClientGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return namespacedConfig{getter: g}
}

// namespacedConfig is the clientcmd.ClientConfig of a restClientGetter.
type namespacedConfig struct{ getter *restClientGetter }

func (c namespacedConfig) RawConfig() (clientcmdapi.Config, error) {
	return *clientcmdapi.NewConfig(), nil
}

func (c namespacedConfig) ClientConfig() (*rest.Config, error) { return c.getter.ToRESTConfig() }

func (c namespacedConfig) Namespace() (string, bool, error) { return c.getter.namespace, true, nil }

func (c namespacedConfig) ConfigAccess() clientcmd.ConfigAccess {
	return clientcmd.NewDefaultPathOptions()
}

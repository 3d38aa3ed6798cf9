package api

import (
	"sort"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// providerView is one loaded provider plugin in GET /providers.
type providerView struct {
	Name            string               `json:"name"`
	DisplayName     string               `json:"displayName"`
	Cloud           string               `json:"cloud"`
	Topologies      []string             `json:"topologies"`
	Availability    sdk.Availability     `json:"availability"`
	Version         string               `json:"version"`
	Capabilities    []string             `json:"capabilities"`
	RegionInput     string               `json:"regionInput,omitempty"`
	Schema          []fieldView          `json:"schema"`
	CredentialKinds []credentialKindView `json:"credentialKinds"`
	// Upgrades are the Kubernetes versions a cluster of each version can
	// move to (the plugin's "upgrade" capability); empty without it.
	Upgrades []upgradeView `json:"upgrades"`
	// Health is "ok" or "degraded"; LastError says why when degraded.
	Health    string `json:"health"`
	LastError string `json:"lastError,omitempty"`
	// UpgradeRefused says why a new binary installed over the plugin was
	// not loaded; the version listed (the one that answers) serves on.
	UpgradeRefused string `json:"upgradeRefused,omitempty"`
}

// fieldView is an input field or a field of a credential kind.
type fieldView struct {
	Name            string   `json:"name"`
	Type            string   `json:"type"`
	Label           string   `json:"label"`
	Description     string   `json:"description,omitempty"`
	Order           int      `json:"order"`
	Group           string   `json:"group,omitempty"`
	Default         string   `json:"default,omitempty"`
	Required        bool     `json:"required"`
	Secret          bool     `json:"secret"`
	Allowed         []string `json:"allowed,omitempty"`
	Min             *int64   `json:"min,omitempty"`
	Max             *int64   `json:"max,omitempty"`
	Pattern         string   `json:"pattern,omitempty"`
	Multiline       bool     `json:"multiline,omitempty"`
	CredentialKinds []string `json:"credentialKinds,omitempty"`
	Help            string   `json:"help"`
}

// upgradeView is one upgrade path a plugin offers: from a version to the
// versions one minor up it can move a cluster to.
type upgradeView struct {
	From string   `json:"from"`
	To   []string `json:"to"`
}

type credentialKindView struct {
	Name        string      `json:"name"`
	DisplayName string      `json:"displayName"`
	Help        string      `json:"help"`
	Fields      []fieldView `json:"fields"`
	Last4Field  string      `json:"last4Field,omitempty"`
}

// providerList is GET /providers: the loaded plugins, and the files of the
// plugin directory that were not loaded and why.
type providerList struct {
	Items   []providerView   `json:"items"`
	Skipped []plugin.Skipped `json:"skipped"`
}

func (s *server) listProviders(c *fiber.Ctx) error {
	out := providerList{Items: []providerView{}, Skipped: []plugin.Skipped{}}
	for _, p := range s.providers.Plugins() {
		out.Items = append(out.Items, viewProvider(p))
	}
	if sk := s.providers.Skipped(); sk != nil {
		out.Skipped = sk
	}
	return c.JSON(out)
}

func viewProvider(p plugin.Plugin) providerView {
	i := p.Info
	v := providerView{Name: p.Name, DisplayName: i.DisplayName, Cloud: i.Cloud, Topologies: orEmpty(i.Topologies),
		Availability: i.Availability, Version: i.PluginVersion, Capabilities: []string{}, RegionInput: i.RegionInput,
		Schema: viewFields(i.Schema), CredentialKinds: []credentialKindView{}, Upgrades: []upgradeView{}, Health: string(p.Health), LastError: p.LastError,
		UpgradeRefused: p.UpgradeRefused}
	if v.Health == "" {
		v.Health = string(plugin.Healthy)
	}
	for _, c := range i.Capabilities {
		v.Capabilities = append(v.Capabilities, string(c))
	}
	for _, k := range i.CredentialKinds {
		v.CredentialKinds = append(v.CredentialKinds, credentialKindView{Name: k.Name, DisplayName: k.DisplayName,
			Help: k.Help, Fields: viewFields(k.Fields), Last4Field: k.Last4Field})
	}
	if i.Has(sdk.CapUpgrade) {
		for _, u := range i.Upgrades {
			v.Upgrades = append(v.Upgrades, upgradeView{From: u.From, To: orEmpty(u.To)})
		}
	}
	return v
}

// viewFields lists fields in form order: by Order, then as declared.
func viewFields(fields []sdk.InputField) []fieldView {
	out := make([]fieldView, 0, len(fields))
	for _, f := range fields {
		label := f.Label
		if label == "" {
			label = f.Name
		}
		out = append(out, fieldView{Name: f.Name, Type: string(f.Type), Label: label, Description: f.Description,
			Order: f.Order, Group: f.Group, Default: f.Default, Required: f.Required, Secret: f.Secret,
			Allowed: f.Allowed, Min: f.Min, Max: f.Max, Pattern: f.Pattern, Multiline: f.Multiline,
			CredentialKinds: f.CredentialKinds, Help: f.Help})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Order < out[b].Order })
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

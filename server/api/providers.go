package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/sdk"
)

type providerView struct {
	Name         string           `json:"name"`
	DisplayName  string           `json:"displayName"`
	Cloud        string           `json:"cloud"`
	Topologies   []string         `json:"topologies"`
	Availability sdk.Availability `json:"availability"`
	Version      string           `json:"version"`
	Schema       []fieldView      `json:"schema"`
}

type fieldView struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Default  string   `json:"default,omitempty"`
	Required bool     `json:"required"`
	Secret   bool     `json:"secret"`
	Allowed  []string `json:"allowed,omitempty"`
	Help     string   `json:"help"`
}

func (s *server) listProviders(c *fiber.Ctx) error {
	out := []providerView{}
	for _, p := range s.providers.Plugins() {
		i := p.Info
		v := providerView{Name: p.Name, DisplayName: i.DisplayName, Cloud: i.Cloud, Topologies: i.Topologies,
			Availability: i.Availability, Version: i.PluginVersion, Schema: []fieldView{}}
		for _, f := range i.Schema {
			v.Schema = append(v.Schema, fieldView{f.Name, string(f.Type), f.Default, f.Required, f.Secret, f.Allowed, f.Help})
		}
		out = append(out, v)
	}
	return c.JSON(fiber.Map{"items": out})
}

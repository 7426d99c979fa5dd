package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
)

// LegacyProjectKey is the store key of the project the vault key names
// when no projects entry describes that folder: the key every node of a
// single-vault setup has always carried.
const LegacyProjectKey = "default"

// MaxProjects is the most projects a server serves (spec 003).
const MaxProjects = 100

// ProjectConfig is one vault served as a project (spec 003). In the file:
//
//	projects:
//	  - path: ~/notes/work          # required
//	    name: Work                  # default: the folder's name
//	    slug: work                  # default: the name, slugified
//	    description: Team notes     # default: none
//	    id: 6f1d...                 # default: a UUID derived from the key
//
// or just the path as a string; the environment variable
// VAULTGRAPH_PROJECTS is a comma list of paths.
type ProjectConfig struct {
	Path        string // absolute vault folder
	ID          string // UUID; "" means derived (see ServedProjects' caller)
	Name        string
	Slug        string
	Description string
	// Key is the project name every node of the vault carries in the
	// store; ServedProjects sets it: LegacyProjectKey for the vault key's
	// folder unless a projects entry describes it, else the slug.
	Key string
}

// ServedProjects returns the projects the configuration serves, the
// primary one first: the vault key's folder when set, else the first
// projects entry. A projects entry whose path is the vault's describes
// the primary project (name, slug, description, id) and gives it its
// slug as key. Names and slugs are filled in from the folder's name.
func (c *Config) ServedProjects() []ProjectConfig {
	var out []ProjectConfig
	entries := slices.Clone(c.Projects)
	if c.Vault != "" {
		primary := ProjectConfig{Path: c.Vault, Key: LegacyProjectKey}
		if i := slices.IndexFunc(entries, func(p ProjectConfig) bool { return p.Path == c.Vault }); i >= 0 {
			primary = entries[i]
			entries = slices.Delete(entries, i, i+1)
		}
		out = append(out, primary)
	}
	out = append(out, entries...)
	for i := range out {
		p := &out[i]
		if p.Name == "" {
			p.Name = filepath.Base(p.Path)
		}
		if p.Slug == "" {
			p.Slug = slugify(p.Name)
		}
		if p.Key == "" {
			p.Key = p.Slug
		}
		p.ID = strings.ToLower(p.ID)
	}
	return out
}

// slugify is core.Slug, "vault" for a name with no letter or digit.
func slugify(s string) string {
	if slug := core.Slug(s); slug != "" {
		return slug
	}
	return "vault"
}

// toProjects accepts a comma list of paths (environment), or a YAML list
// whose items are paths or mappings with path, name, slug, description
// and id. Relative paths are resolved against base.
func (k *key) toProjects(raw any, base string) ([]ProjectConfig, []Problem) {
	var items []any
	switch v := raw.(type) {
	case []ProjectConfig:
		return slices.Clone(v), nil
	case string:
		for _, s := range splitList(v) {
			items = append(items, s)
		}
	case []string:
		for _, s := range v {
			items = append(items, s)
		}
	case []any:
		items = v
	default:
		return nil, k.problem("%s is not a list, want a list of vault paths or {path, name, slug, description, id} mappings", k.show(raw))
	}
	out := make([]ProjectConfig, 0, len(items))
	var problems []Problem
	for i, item := range items {
		at := fmt.Sprintf("%s[%d]", k.name, i)
		p, ps := projectItem(at, item, base)
		problems = append(problems, ps...)
		if len(ps) == 0 {
			out = append(out, p)
		}
	}
	return out, problems
}

func projectItem(at string, item any, base string) (ProjectConfig, []Problem) {
	bad := func(format string, args ...any) (ProjectConfig, []Problem) {
		return ProjectConfig{}, []Problem{{Key: at, Message: fmt.Sprintf(format, args...)}}
	}
	var p ProjectConfig
	if s, ok := scalarString(item); ok {
		p.Path = s
	} else {
		m, ok := item.(map[string]any)
		if !ok {
			return bad("%s is not a project, want a path or {path, name, slug, description, id}", showValue(item))
		}
		for _, name := range slices.Sorted(maps.Keys(m)) {
			s, ok := scalarString(m[name])
			if !ok && m[name] != nil {
				return bad("%s is %s, want a string", name, showValue(m[name]))
			}
			switch strings.ToLower(name) {
			case "path":
				p.Path = s
			case "name":
				p.Name = strings.TrimSpace(s)
			case "slug":
				p.Slug = strings.TrimSpace(s)
			case "description":
				p.Description = strings.TrimSpace(s)
			case "id":
				p.ID = strings.TrimSpace(s)
			default:
				return bad("unknown field %q, want path, name, slug, description and id", name)
			}
		}
	}
	if strings.TrimSpace(p.Path) == "" {
		return bad("has no path, want the vault folder")
	}
	abs, err := expandPath(p.Path, base)
	if err != nil {
		return bad("%q: %v", p.Path, err)
	}
	p.Path = abs
	return p, nil
}

// checkProjects: every folder exists, at most MaxProjects, ids are UUIDs,
// and no two served projects share a folder, an id, a slug or a key.
func checkProjects(c *Config) []Problem {
	var out []Problem
	for i, p := range c.Projects {
		at := fmt.Sprintf("projects[%d]", i)
		if pr, ok := CheckDir(at, p.Path, "the vault folder of a project"); !ok {
			out = append(out, pr)
		}
		if p.ID != "" && !isUUID(p.ID) {
			out = append(out, problemf(at, "id %q is not a UUID, want 8-4-4-4-12 hex digits", p.ID))
		}
	}
	served := c.ServedProjects()
	if len(served) > MaxProjects {
		out = append(out, problemf("projects", "%d projects, want at most %d", len(served), MaxProjects))
	}
	seen := map[string]string{}
	for _, p := range served {
		for _, f := range []struct{ what, v string }{{"folder", p.Path}, {"id", p.ID}, {"slug", p.Slug}, {"store key", p.Key}} {
			if f.v == "" {
				continue
			}
			k := f.what + "\x00" + f.v
			if other, dup := seen[k]; dup {
				out = append(out, problemf("projects", "%s and %s have the same %s %q, want each project's own", other, p.Path, f.what, f.v))
			}
			seen[k] = p.Path
		}
	}
	return out
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", r):
			return false
		}
	}
	return true
}

// projectViews renders projects for status: "slug=path" each.
func projectViews(ps []ProjectConfig) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		slug := p.Slug
		if slug == "" {
			slug = slugify(cmpOr(p.Name, filepath.Base(p.Path)))
		}
		out[i] = slug + "=" + p.Path
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// checkTypeKey: the entity type key is a non-empty frontmatter key.
func checkTypeKey(c *Config) []Problem {
	if strings.TrimSpace(c.Entities.TypeKey) == "" {
		return []Problem{problemf("entities.type_key", "is empty, want a frontmatter key such as type")}
	}
	return nil
}

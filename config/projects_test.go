package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProjectsFromTheFile(t *testing.T) {
	wd := isolate(t)
	for _, d := range []string{"notes", "work", "Side Project"} {
		require.NoError(t, os.MkdirAll(filepath.Join(wd, d), 0o755))
	}
	writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), `vault: notes
projects:
  - {path: work, name: Work, slug: team, description: Team notes, id: 0B8F2B9A-2D1E-4C1B-9F00-AAAAAAAAAAAA}
  - Side Project
  - {path: notes, name: Mine}
entities:
  type_key: kind
`)
	c, err := load(t)
	require.NoError(t, err)
	assert.Equal(t, "kind", c.Entities.TypeKey)
	served := c.ServedProjects()
	require.Len(t, served, 3)
	assert.Equal(t, ProjectConfig{Path: filepath.Join(wd, "notes"), Name: "Mine", Slug: "mine", Key: "mine"}, served[0],
		"an entry with the vault's path describes the primary project, which takes its slug as key")
	assert.Equal(t, ProjectConfig{Path: filepath.Join(wd, "work"), Name: "Work", Slug: "team", Description: "Team notes", ID: "0b8f2b9a-2d1e-4c1b-9f00-aaaaaaaaaaaa", Key: "team"}, served[1])
	assert.Equal(t, ProjectConfig{Path: filepath.Join(wd, "Side Project"), Name: "Side Project", Slug: "side-project", Key: "side-project"}, served[2])
}

func TestASingleVaultIsTheLegacyProject(t *testing.T) {
	wd := isolate(t)
	require.NoError(t, os.MkdirAll(filepath.Join(wd, "My Notes"), 0o755))
	c, err := load(t, "--vault", "My Notes")
	require.NoError(t, err)
	assert.Equal(t, []ProjectConfig{{Path: filepath.Join(wd, "My Notes"), Name: "My Notes", Slug: "my-notes", Key: LegacyProjectKey}}, c.ServedProjects())
}

func TestProjectsFromTheEnvironmentWithoutVault(t *testing.T) {
	wd := isolate(t)
	for _, d := range []string{"a", "b"} {
		require.NoError(t, os.MkdirAll(filepath.Join(wd, d), 0o755))
	}
	t.Setenv("VAULTGRAPH_PROJECTS", "a, b,")
	c, err := loadWith(t, LoadOptions{RequireVault: true})
	require.NoError(t, err, "projects satisfy the need for a vault")
	served := c.ServedProjects()
	require.Len(t, served, 2)
	assert.Equal(t, "a", served[0].Key, "the first entry is primary")
	assert.Equal(t, []string{"a=" + filepath.Join(wd, "a"), "b=" + filepath.Join(wd, "b")}, FormatValueList(t, c))
}

// FormatValueList is status's view of projects.
func FormatValueList(t *testing.T, c *Config) []string {
	t.Helper()
	for _, s := range c.Settings() {
		if s.Key == "projects" {
			return s.Value.([]string)
		}
	}
	t.Fatal("no projects setting")
	return nil
}

func TestBadProjectsAreReported(t *testing.T) {
	wd := isolate(t)
	require.NoError(t, os.MkdirAll(filepath.Join(wd, "a"), 0o755))
	writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), `projects:
  - {name: no path}
  - {path: a, colour: red}
  - [1, 2]
entities:
  type_key: ""
`)
	_, err := load(t)
	assert.Equal(t, []string{
		`projects[0]: has no path, want the vault folder`,
		`projects[1]: unknown field "colour", want path, name, slug, description and id`,
		`projects[2]: a list is not a project, want a path or {path, name, slug, description, id}`,
		`entities.type_key: is empty, want a frontmatter key such as type`,
	}, problemLines(t, err))

	writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "projects: [{path: a, id: nope}, {path: missing}]\n")
	_, err = load(t)
	assert.Equal(t, []string{
		`projects[0]: id "nope" is not a UUID, want 8-4-4-4-12 hex digits`,
		`projects[1]: "` + filepath.Join(wd, "missing") + `" does not exist, want the vault folder of a project`,
	}, problemLines(t, err))
}

func TestDuplicateSlugsAreReported(t *testing.T) {
	wd := isolate(t)
	require.NoError(t, os.MkdirAll(filepath.Join(wd, "a"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(wd, "b"), 0o755))
	writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), "projects: [{path: a, slug: same}, {path: b, slug: same}]\n")
	_, err := load(t)
	lines := problemLines(t, err)
	require.Len(t, lines, 2, "slug and store key")
	assert.Contains(t, lines[0], `have the same slug "same"`)
}

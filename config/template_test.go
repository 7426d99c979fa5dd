package config

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTemplateLoadsBackWithTheVaultAndDefaults(t *testing.T) {
	wd := isolate(t)
	vault := filepath.Join(wd, "My Notes: 2024")
	writeFile(t, filepath.Join(vault, "a.md"), "# a")
	file := writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), string(Template(vault)))

	c, err := loadWith(t, LoadOptions{RequireVault: true})
	require.NoError(t, err)
	assert.Equal(t, file, c.File)
	assert.Equal(t, vault, c.Vault)

	want := Default()
	want.Vault, want.File, want.origins = c.Vault, c.File, c.origins
	assert.Equal(t, want, c, "every other key keeps its default")
}

func TestTemplateDocumentsEveryKey(t *testing.T) {
	tpl := string(Template("/v"))
	for i := range keys {
		k := &keys[i]
		assert.True(t, strings.Contains(tpl, " env "+k.env()+"\n") || strings.Contains(tpl, " env "+k.env()+", flag "), k.name)
		if k.flag != "" {
			assert.True(t, strings.Contains(tpl, "--"+k.flag+"\n"), k.name)
		}
	}
}

// Uncommenting every setting line of the template must give a valid file
// whose values are the defaults: the defaults it documents are the real ones.
func TestTemplateDefaultsAreTheDefaults(t *testing.T) {
	wd := isolate(t)
	t.Setenv("XDG_STATE_HOME", "") // the template shows the XDG fallback
	leaves := map[string]bool{}
	for i := range keys {
		name := keys[i].name
		leaves[name[strings.LastIndex(name, ".")+1:]] = true
	}
	setting := regexp.MustCompile(`^(\s*)# ([a-z_]+: .*|[a-z_]+:|  - .*)$`)
	var lines []string
	for line := range strings.SplitSeq(string(Template("")), "\n") {
		if m := setting.FindStringSubmatch(line); m != nil {
			leaf, _, _ := strings.Cut(strings.TrimSpace(m[2]), ":")
			if leaves[leaf] || strings.HasPrefix(m[2], "  - ") {
				line = m[1] + m[2]
			}
		}
		lines = append(lines, line)
	}
	uncommented := strings.Join(lines, "\n")
	writeFile(t, filepath.Join(wd, "vaultgraph.yaml"), uncommented)
	require.Contains(t, uncommented, "\n  uri: bolt://127.0.0.1:7687\n")
	require.Contains(t, uncommented, "\ntoolsets: [graph, kb, edit]\n")

	c, err := load(t)
	require.NoError(t, err, uncommented)
	for _, s := range c.Settings() {
		if s.Key != "http.tokens" { // the template shows example tokens
			assert.Equal(t, c.File, s.Origin, "%s is set by the uncommented file", s.Key)
		}
	}
	want := Default()
	want.HTTP.Tokens = []Token{{Value: "change-me-full-access"}, {Value: "change-me-read-only", ReadOnly: true}}
	want.File, want.origins = c.File, c.origins
	assert.Equal(t, want, c)
}

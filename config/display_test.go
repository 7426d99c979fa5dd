package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// secretConfig loads a config whose every secret is set from the
// environment to a value that must never be printed.
func secretConfig(t *testing.T) *Config {
	t.Helper()
	isolate(t)
	t.Setenv("VAULTGRAPH_NEO4J_PASSWORD", "pw-LEAK")
	t.Setenv("VAULTGRAPH_HTTP_TOKENS", "tok-LEAK,ro:rotok-LEAK")
	t.Setenv("VAULTGRAPH_EMBEDDING_API_KEY", "key-LEAK")
	c, err := load(t)
	require.NoError(t, err)
	require.Equal(t, "pw-LEAK", c.Neo4j.Password.Reveal())
	return c
}

func TestSecretsNeverPrinted(t *testing.T) {
	c := secretConfig(t)

	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("loaded", "config", c)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("loaded", "config", c, "password", c.Neo4j.Password)
	yml, err := yaml.Marshal(c.Settings())
	require.NoError(t, err)
	jsn, err := json.Marshal(c)
	require.NoError(t, err)

	outputs := map[string]string{
		"String":    c.String(),
		"%v":        fmt.Sprintf("%v", c),
		"%+v":       fmt.Sprintf("%+v", *c),
		"%#v":       fmt.Sprintf("%#v", *c),
		"%s secret": fmt.Sprintf("%s %q %x", c.Neo4j.Password, c.Embedding.APIKey, c.HTTP.Tokens[0].Value),
		"slog text": text.String(),
		"slog json": js.String(),
		"settings":  string(yml),
		"json":      string(jsn),
	}
	for name, out := range outputs {
		assert.NotContains(t, out, "LEAK", name)
	}
	assert.Contains(t, c.String(), "neo4j.password=[redacted]")
	assert.Contains(t, c.String(), "http.tokens=[redacted],ro:[redacted]")
	assert.Contains(t, c.String(), "embedding.api_key=[redacted]")
	assert.Contains(t, text.String(), "config.neo4j.password=[redacted]")
	assert.Contains(t, text.String(), "config.neo4j.uri=bolt://127.0.0.1:7687")
	assert.Contains(t, js.String(), `"api_key":"[redacted]"`)
}

func TestUnsetSecretsShowEmpty(t *testing.T) {
	isolate(t)
	c, err := load(t)
	require.NoError(t, err)
	assert.Contains(t, c.String(), `neo4j.password="" `)
	for _, s := range c.Settings() {
		if s.Key == "http.tokens" {
			assert.Equal(t, []TokenView{}, s.Value)
		}
	}
}

func TestSettingsInTableOrderWithOrigins(t *testing.T) {
	isolate(t)
	t.Setenv("VAULTGRAPH_NEO4J_USER", "alice")
	c, err := load(t, "--toolsets", "memory")
	require.NoError(t, err)
	settings := c.Settings()
	require.Len(t, settings, len(keys))
	for i, s := range settings {
		assert.Equal(t, keys[i].name, s.Key)
		switch s.Key {
		case "neo4j.user":
			assert.Equal(t, "alice", s.Value)
			assert.Equal(t, "env VAULTGRAPH_NEO4J_USER", s.Origin)
		case "toolsets":
			assert.Equal(t, []string{"memory"}, s.Value)
			assert.Equal(t, "flag --toolsets", s.Origin)
			assert.Equal(t, "toolsets", s.Flag)
		case "store":
			assert.Equal(t, "default", s.Origin)
		}
	}
}

func TestFormatValue(t *testing.T) {
	assert.Equal(t, "graph,kb", FormatValue([]string{"graph", "kb"}))
	assert.Equal(t, "a=b,c=d", FormatValue(map[string]string{"c": "d", "a": "b"}))
	assert.Equal(t, "30s", FormatValue("30s"))
	assert.Equal(t, "true", FormatValue(true))
	assert.Equal(t, "[redacted],ro:[redacted]", FormatValue([]TokenView{{Token: Redacted}, {Token: Redacted, ReadOnly: true}}))
}

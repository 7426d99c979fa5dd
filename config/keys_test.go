package config

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The key table is the single declaration of every setting; these checks
// keep it consistent.
func TestKeyTable(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	seenEnv := map[string]bool{}
	seenFlag := map[string]bool{}
	for i := range keys {
		k := &keys[i]
		t.Run(k.name, func(t *testing.T) {
			assert.NotEmpty(t, k.help, "every key is documented")
			assert.False(t, seenEnv[k.env()], "environment variables are unique")
			seenEnv[k.env()] = true
			if k.isSecret() {
				assert.Empty(t, k.flag, "secrets are never flags")
			}
			if k.flag != "" {
				assert.Regexp(t, kebab, k.flag)
				assert.NotEqual(t, NoFlag, k.scope)
				assert.False(t, seenFlag[k.flag], "flag names are unique")
				seenFlag[k.flag] = true
			}
			assert.NotPanics(t, func() { displayValue(k.field(&Config{})) })
		})
	}
}

func TestKeysOfAGroupAreContiguous(t *testing.T) {
	// Template writes a group header ("neo4j:") once, before its first key,
	// so a group interrupted by any other key would break the file.
	closed := map[string]bool{}
	current := ""
	for i := range keys {
		group, _, nested := strings.Cut(keys[i].name, ".")
		if !nested {
			group = ""
		}
		if group != current {
			closed[current] = true
			current = group
			if group != "" {
				assert.False(t, closed[group], "keys of %q are split", group)
			}
		}
	}
}

func TestDefaultsAreValid(t *testing.T) {
	isolate(t)
	assert.NoError(t, Default().Validate())
}

func TestEnvNames(t *testing.T) {
	assert.Equal(t, "VAULTGRAPH_NEO4J_URI", lookupKey("neo4j.uri").env())
	assert.Equal(t, "VAULTGRAPH_NEO4J_MAX_CONNECTIONS", lookupKey("neo4j.max_connections").env())
	assert.Equal(t, "VAULTGRAPH_HTTP_TOKENS", lookupKey("http.tokens").env())
	assert.Equal(t, "VAULTGRAPH_STATE_DIR", lookupKey("state_dir").env())
}

package entities_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/tools"
	"github.com/vaultgraph/vaultgraph/tools/entities"
	"github.com/vaultgraph/vaultgraph/tools/toolsnaps"
)

func TestToolSnapshots(t *testing.T) {
	for _, spec := range entities.Specs() {
		t.Run(spec.Name, func(t *testing.T) { toolsnaps.Test(t, spec) })
	}
}

func TestEveryToolIsReadOnlyAndPublishesBothSchemas(t *testing.T) {
	for _, tool := range entities.Tools(entities.Deps{}) {
		assert.Equal(t, tools.ToolsetEntities, tool.Toolset)
		assert.True(t, tool.ReadOnly(), tool.Tool.Name)
		a := tool.Tool.Annotations
		require.NotNil(t, a.DestructiveHint)
		require.NotNil(t, a.IdempotentHint)
		require.NotNil(t, a.OpenWorldHint)
		assert.False(t, *a.DestructiveHint || *a.OpenWorldHint)
		assert.True(t, *a.IdempotentHint)
		published, err := json.Marshal(tool.Tool)
		require.NoError(t, err)
		var got struct {
			InputSchema, OutputSchema json.RawMessage
		}
		require.NoError(t, json.Unmarshal(published, &got))
		assert.JSONEq(t, string(entities.Schema(tool.Tool.Name, "input")), string(withoutDescriptions(t, got.InputSchema)),
			"the published input schema is the spec's plus descriptions")
		assert.JSONEq(t, string(tools.PortableSchema(entities.Schema(tool.Tool.Name, "output"))), string(got.OutputSchema),
			"the published output schema is the spec's with its type arrays written as anyOf")
		_, err = tools.CompileSchema(tool.Tool.Name, got.OutputSchema)
		require.NoError(t, err)
	}
}

// TestSchemasAreTheSpecs compares the embedded schemas with spec 003's
// text, when the specs are at hand (VAULTGRAPH_SPECS, or ../shared/specs
// beside the repository).
func TestSchemasAreTheSpecs(t *testing.T) {
	dir := os.Getenv("VAULTGRAPH_SPECS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "specs")
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "003_*.txt"))
	if len(matches) != 1 {
		t.Skipf("spec 003 not found in %s", dir)
	}
	text, err := os.ReadFile(matches[0])
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(text, -1)
	require.Len(t, blocks, 9, "the error example, then input and output of four tools")
	i := 1
	for _, spec := range entities.Specs() {
		for _, kind := range []string{"input", "output"} {
			assert.JSONEq(t, string(bytes.TrimSpace(blocks[i][1])), string(entities.Schema(spec.Name, kind)), "%s %s", spec.Name, kind)
			i++
		}
	}
}

// withoutDescriptions drops the properties' descriptions of a schema.
func withoutDescriptions(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var schema map[string]any
	require.NoError(t, json.Unmarshal(raw, &schema))
	props, _ := schema["properties"].(map[string]any)
	for _, p := range props {
		prop := p.(map[string]any)
		assert.NotEmpty(t, prop["description"])
		delete(prop, "description")
	}
	out, err := json.Marshal(schema)
	require.NoError(t, err)
	return out
}

package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/internal/jsonrpc"
)

// promptArgs holds, by prompt name, the arguments of every prompt a
// server of this process registered, so that a prompts/get without a
// required argument is refused as invalid params (-32602) on every entry
// point, before mcp-go runs the handler: mcp-go answers any handler error
// with -32603 (internal error), which tells a client the server failed
// when the request was at fault. A process that registers no prompts (a
// relay to the vault's owner) leaves the check to the owner.
var promptArgs sync.Map // string → []mcp.PromptArgument

// registerPrompts records the arguments of prompts.
func registerPrompts(prompts []mcpserver.ServerPrompt) {
	for _, p := range prompts {
		promptArgs.Store(p.Prompt.Name, p.Prompt.Arguments)
	}
}

// missingPromptArgument returns the refusal of a prompts/get message that
// lacks a required argument of a registered prompt (absent or blank).
func missingPromptArgument(msg []byte, method string) (refusal, bool) {
	if mcp.MCPMethod(method) != mcp.MethodPromptsGet {
		return refusal{}, false
	}
	var m struct {
		Params struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return refusal{}, false // mcp-go answers it as malformed
	}
	v, ok := promptArgs.Load(m.Params.Name)
	if !ok {
		return refusal{}, false // unknown prompt: mcp-go says so (-32602)
	}
	for _, a := range v.([]mcp.PromptArgument) {
		if a.Required && strings.TrimSpace(m.Params.Arguments[a.Name]) == "" {
			return refusal{
				code:   jsonrpc.CodeInvalidParams,
				msg:    fmt.Sprintf("invalid params: prompt %q needs the argument %q: %s", m.Params.Name, a.Name, a.Description),
				reason: "prompt_argument",
			}, true
		}
	}
	return refusal{}, false
}

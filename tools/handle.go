package tools

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Handling is how one toolset answers every call: how the call's context
// is prepared, how its arguments are read, and how an answer or an error
// becomes the toolset's result shape (spec 000's {"error": {...}}, spec
// 004's envelope...). Each toolset builds one from its Deps; Handle does
// the rest, the same way for every tool.
type Handling struct {
	// Begin, when set, prepares the call's context before anything else
	// (a deadline, a collector of warnings); the func it returns runs
	// when the call ends.
	Begin func(ctx context.Context) (context.Context, func())
	// Arguments, when set, makes the decoder of spec's arguments, built
	// once per tool; unset, it is MustArguments.
	Arguments func(spec mcp.Tool) Decoder
	// Precheck, when set, looks at the raw arguments before the schema
	// does, for errors a spec words itself ("Invalid memory type: x"
	// rather than the schema's enum message). Set it per tool with
	// WithPrecheck.
	Precheck func(args map[string]any) error
	// Fail turns any error (arguments refused, or run's error) into the
	// toolset's error result. Required.
	Fail func(ctx context.Context, tool string, err error) *mcp.CallToolResult
	// OK turns run's answer into the toolset's result. Required.
	OK func(ctx context.Context, out any) *mcp.CallToolResult
}

// WithPrecheck returns h with check as its Precheck.
func (h Handling) WithPrecheck(check func(args map[string]any) error) Handling {
	h.Precheck = check
	return h
}

// A Decoder checks a call's arguments and decodes them into dst, a pointer
// to the tool's input struct. *Arguments is the one every toolset uses but
// entities, whose errors carry each violation's place.
type Decoder interface {
	Decode(req mcp.CallToolRequest, dst any) error
}

// Handle builds the handler of the tool spec around run: the arguments
// are checked against spec's published input schema and decoded into In,
// run's answer goes out through h.OK and any error through h.Fail. The
// handler never returns a Go error: every failure here is one the model
// should see.
//
// Handle is called as the toolsets are built, at start: it panics when
// In's JSON fields are not exactly the properties of spec's input schema
// (CheckInput), naming the tool and the fields, so a drift between the
// struct a handler decodes and the schema a client is shown never gets
// past start, nor past the inventory test.
func Handle[In any](h Handling, spec mcp.Tool, run func(ctx context.Context, in In) (any, error)) server.ToolHandlerFunc {
	if h.Fail == nil || h.OK == nil {
		panic(fmt.Sprintf("tools: handling of %s has no Fail or OK", spec.Name))
	}
	in := reflect.TypeFor[In]()
	if err := CheckInput(spec, in); err != nil {
		panic(err)
	}
	recordInput(spec.Name, in)
	var args Decoder
	if h.Arguments != nil {
		args = h.Arguments(spec)
	} else {
		args = MustArguments(spec)
	}
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if h.Begin != nil {
			var end func()
			ctx, end = h.Begin(ctx)
			defer end()
		}
		if h.Precheck != nil {
			if err := h.Precheck(req.GetArguments()); err != nil {
				return h.Fail(ctx, spec.Name, err), nil
			}
		}
		var in In
		if err := args.Decode(req, &in); err != nil {
			return h.Fail(ctx, spec.Name, err), nil
		}
		out, err := run(ctx, in)
		if err != nil {
			return h.Fail(ctx, spec.Name, err), nil
		}
		return h.OK(ctx, out), nil
	}
}

// handled records, for each tool name, the input types Handle built a
// handler for (two toolsets may publish one name: search).
var handled sync.Map // string -> *handledInputs

type handledInputs struct {
	mu    sync.Mutex
	types []reflect.Type
}

func recordInput(tool string, in reflect.Type) {
	v, _ := handled.LoadOrStore(tool, &handledInputs{})
	hi := v.(*handledInputs)
	hi.mu.Lock()
	defer hi.mu.Unlock()
	for _, t := range hi.types {
		if t == in {
			return
		}
	}
	hi.types = append(hi.types, in)
}

// HandledInputs returns the input types Handle has built a handler of
// tool for in this process, so the inventory test can tell that every
// tool went through Handle (and so through CheckInput).
func HandledInputs(tool string) []reflect.Type {
	v, ok := handled.Load(tool)
	if !ok {
		return nil
	}
	hi := v.(*handledInputs)
	hi.mu.Lock()
	defer hi.mu.Unlock()
	return append([]reflect.Type(nil), hi.types...)
}

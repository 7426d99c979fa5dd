package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// rpcClient speaks MCP's stdio transport (newline-delimited JSON-RPC) to
// serve without a client library, so that a call can be timed from the
// moment its request is written to the moment the last byte of its answer
// is read: the server's and the transport's time. Decoding the answer is
// the client's own cost and comes after the clock stops (mcp-go's client
// spends about 2 ms decoding a 40 KB answer, four times what serve takes
// to produce it; see docs/BENCHMARKS.md). Every answer is still decoded
// with mcp-go's types and checked.
type rpcClient struct {
	w       io.WriteCloser
	writeMu sync.Mutex
	next    atomic.Int64

	mu      sync.Mutex
	pending map[int64]chan rpcAnswer
	readErr error // set once the reader stops
}

// rpcAnswer is one answer line and when its last byte arrived.
type rpcAnswer struct {
	line []byte
	at   time.Time
}

func newRPCClient(stdin io.WriteCloser, stdout io.Reader) *rpcClient {
	c := &rpcClient{w: stdin, pending: map[int64]chan rpcAnswer{}}
	go c.read(bufio.NewReaderSize(stdout, 1<<20))
	return c
}

// read routes answer lines to their callers until stdout ends.
func (c *rpcClient) read(r *bufio.Reader) {
	for {
		line, err := r.ReadBytes('\n')
		at := time.Now()
		if len(line) > 0 {
			if id, ok := answerID(line); ok {
				c.mu.Lock()
				ch := c.pending[id]
				delete(c.pending, id)
				c.mu.Unlock()
				if ch != nil {
					ch <- rpcAnswer{line: line, at: at}
				}
			} // else a notification: ignored
		}
		if err != nil {
			c.mu.Lock()
			c.readErr = fmt.Errorf("serve's stdout: %w", err)
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
	}
}

// answerID reads the numeric id of an answer. serve (like encoding/json
// for mcp-go's message types) writes "jsonrpc" then "id" first, so the
// prefix is enough; other layouts are decoded whole.
func answerID(line []byte) (int64, bool) {
	const prefix = `{"jsonrpc":"2.0","id":`
	if rest, ok := bytes.CutPrefix(line, []byte(prefix)); ok {
		if end := bytes.IndexByte(rest, ','); end > 0 {
			if id, err := strconv.ParseInt(string(rest[:end]), 10, 64); err == nil {
				return id, true
			}
		}
	}
	var m struct {
		ID *int64 `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || m.ID == nil {
		return 0, false
	}
	return *m.ID, true
}

// call sends a request and returns its result and how long the answer
// took to arrive.
func (c *rpcClient) call(ctx context.Context, method string, params any) (json.RawMessage, time.Duration, error) {
	id := c.next.Add(1)
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, 0, err
	}
	ch := make(chan rpcAnswer, 1)
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return nil, 0, c.readErr
	}
	c.pending[id] = ch
	c.mu.Unlock()
	sent := time.Now()
	c.writeMu.Lock()
	_, err = c.w.Write(append(req, '\n'))
	c.writeMu.Unlock()
	if err != nil {
		return nil, 0, fmt.Errorf("write %s: %w", method, err)
	}
	var ans rpcAnswer
	var ok bool
	select {
	case ans, ok = <-ch:
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, 0, fmt.Errorf("%s: %w", method, ctx.Err())
	}
	if !ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		return nil, 0, c.readErr
	}
	elapsed := ans.at.Sub(sent)
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(ans.line, &msg); err != nil {
		return nil, elapsed, fmt.Errorf("%s: answer is not JSON: %w", method, err)
	}
	if msg.Error != nil {
		return nil, elapsed, fmt.Errorf("%s: JSON-RPC error %d: %s", method, msg.Error.Code, msg.Error.Message)
	}
	if msg.Result == nil {
		return nil, elapsed, errors.New(method + ": answer without a result")
	}
	return msg.Result, elapsed, nil
}

// notify sends a notification.
func (c *rpcClient) notify(method string) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// initialize runs MCP's handshake and returns the tools serve lists.
func (c *rpcClient) initialize(ctx context.Context) ([]mcp.Tool, error) {
	params := map[string]any{
		"protocolVersion": mcp.LATEST_PROTOCOL_VERSION,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "vgbench", "version": "1"},
	}
	if _, _, err := c.call(ctx, string(mcp.MethodInitialize), params); err != nil {
		return nil, err
	}
	if err := c.notify("notifications/initialized"); err != nil {
		return nil, err
	}
	raw, _, err := c.call(ctx, string(mcp.MethodToolsList), map[string]any{})
	if err != nil {
		return nil, err
	}
	var list mcp.ListToolsResult
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	return list.Tools, nil
}

// callTool calls a tool and returns its result, decoded by mcp-go, and
// the time its answer took.
func (c *rpcClient) callTool(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, time.Duration, error) {
	raw, elapsed, err := c.call(ctx, string(mcp.MethodToolsCall), map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return nil, elapsed, err
	}
	res, err := mcp.ParseCallToolResult(&raw)
	if err != nil {
		return nil, elapsed, fmt.Errorf("%s: result: %w", tool, err)
	}
	return res, elapsed, nil
}

// close ends serve's stdin, which ends serve.
func (c *rpcClient) close() error { return c.w.Close() }

package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/internal/testwait"
	"github.com/vaultgraph/vaultgraph/server"
)

// fakeOwner is one backend connection the test drives by hand.
type fakeOwner struct {
	conn net.Conn
	r    *bufio.Reader
}

func (f *fakeOwner) read(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	line, err := f.r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("owner read: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("owner read %q: %v", line, err)
	}
	return m
}

func (f *fakeOwner) write(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(f.conn, line+"\n"); err != nil {
		t.Fatalf("owner write: %v", err)
	}
}

// answer reads requests until one with method, answers it with result
// under its ID, and returns that ID.
func (f *fakeOwner) answer(t *testing.T, method, result string) string {
	t.Helper()
	for {
		m := f.read(t)
		if strings.Trim(string(m["method"]), `"`) != method {
			continue
		}
		f.write(t, `{"jsonrpc":"2.0","id":`+string(m["id"])+`,"result":`+result+`}`)
		return string(m["id"])
	}
}

// relayWithOwners runs RunRelay whose connections are the fake owners
// sent on the returned channel, one per connect.
func relayWithOwners(t *testing.T) (client *rawClient, owners <-chan *fakeOwner) {
	t.Helper()
	ch := make(chan *fakeOwner, 4)
	connect := func(ctx context.Context) (io.ReadWriteCloser, error) {
		front, back := net.Pipe()
		ch <- &fakeOwner{conn: back, r: bufio.NewReader(back)}
		return front, nil
	}
	clientIn, relayOut := io.Pipe()
	relayIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- server.RunRelay(t.Context(), connect, relayIn, relayOut, quietLogger()) }()
	t.Cleanup(func() {
		_ = clientOut.Close()
		<-done
		_ = relayOut.Close()
	})
	return &rawClient{w: clientOut, r: bufio.NewReaderSize(clientIn, 1<<20)}, ch
}

const rawInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// Issue 24: a relay carries a client's session across owners. When the
// owner is killed a request it had is answered with an error (it may have
// run) and the session is re-opened with the next owner (initialize and
// subscriptions replayed, their answers kept from the client); when the
// owner hands over, a request it had not run goes to the next owner.
func TestRelayCarriesTheSessionAcrossOwners(t *testing.T) {
	c, owners := relayWithOwners(t)
	first := testwait.Recv(t, owners, "the first owner's connection")
	c.send(t, rawInit)
	first.answer(t, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"vaultgraph","version":"1"}}`)
	if line := string(c.read(t)); !strings.Contains(line, `"id":0`) {
		t.Fatalf("initialize answer: %s", line)
	}
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"vault://note/a.md"}}`)
	first.read(t) // initialized
	first.answer(t, "resources/subscribe", `{}`)
	c.read(t)

	// Killed with a request in flight.
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_node","arguments":{}}}`)
	first.read(t)
	_ = first.conn.Close()
	if line := string(c.read(t)); !strings.Contains(line, `"id":2`) || !strings.Contains(line, `-32003`) || !strings.Contains(line, "stopped before answering") {
		t.Fatalf("a request the killed owner had: %s", line)
	}
	second := testwait.Recv(t, owners, "the second owner's connection")
	id := second.answer(t, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"vaultgraph","version":"1"}}`)
	if !strings.Contains(id, "vaultgraph-relay-") {
		t.Fatalf("replayed initialize has the client's ID %s", id)
	}
	if m := second.read(t); string(m["method"]) != `"notifications/initialized"` {
		t.Fatalf("after initialize: %v", m)
	}
	second.answer(t, "resources/subscribe", `{}`)
	c.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	second.answer(t, "tools/list", `{"tools":[]}`)
	if line := string(c.read(t)); !strings.Contains(line, `"id":3`) {
		t.Fatalf("the replayed answers reached the client; next: %s", line)
	}

	// Handed over with a request it did not run: it runs on the next.
	c.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_node","arguments":{}}}`)
	second.read(t)
	second.write(t, `{"jsonrpc":"2.0","method":"`+server.MethodHandover+`"}`)
	_ = second.conn.Close()
	third := testwait.Recv(t, owners, "the third owner's connection")
	third.answer(t, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"vaultgraph","version":"1"}}`)
	third.answer(t, "resources/subscribe", `{}`)
	third.answer(t, "tools/call", `{"content":[{"type":"text","text":"{}"}]}`)
	if line := string(c.read(t)); !strings.Contains(line, `"id":4`) || strings.Contains(line, "error") {
		t.Fatalf("a request handed over: %s", line)
	}
}

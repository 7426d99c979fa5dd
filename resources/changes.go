package resources

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/vaultgraph/vaultgraph/core"
)

// Changes tells clients when notes change: notifications/resources/updated
// to the sessions subscribed to a note (resources/subscribe) when it is
// written or deleted, and notifications/resources/list_changed to every
// session when a note appears or vanishes. It learns of changes from the
// store the vault mirror writes through (Store), so a file edited on disk,
// a tool's write, a rename and a delete are all seen, as soon as the
// watcher has written them (its debounce: under a second).
//
// Subscriptions are kept per session and end with it (mcp-go's sessions
// do not keep them; the hooks Attach installs do). Several servers may
// share one Changes (the owning process of a state folder builds one per
// tool surface its local clients ask for); session IDs are unique across
// them.
type Changes struct {
	max     atomic.Int64 // subscriptions one session may hold; 0: DefaultMaxSubscriptions
	mu      sync.Mutex
	servers []*server.MCPServer                  // every server attached, for list_changed
	subs    map[string]*subscriber               // session ID → its server and subscribed URIs
	listens map[server.ClientSession]*subscriber // subscriptions/listen streams → their URIs
	known   map[string]bool                      // IDs of the notes in the store; nil until first needed
}

// subscriber is one session's subscriptions.
type subscriber struct {
	srv  *server.MCPServer
	uris map[string]bool
}

// DefaultMaxSubscriptions is the subscriptions one session may hold
// (resources.max_subscriptions): each is a note's URI, a few hundred
// bytes with its map entry.
const DefaultMaxSubscriptions = 1000

// NewChanges returns a Changes that notifies nobody until Attach.
func NewChanges() *Changes {
	return &Changes{subs: map[string]*subscriber{}, listens: map[server.ClientSession]*subscriber{}}
}

// SetMaxSubscriptions sets the subscriptions one session may hold (n <= 0:
// DefaultMaxSubscriptions).
func (c *Changes) SetMaxSubscriptions(n int) { c.max.Store(int64(n)) }

// MaxSubscriptions returns the subscriptions one session may hold.
func (c *Changes) MaxSubscriptions() int {
	if n := c.max.Load(); n > 0 {
		return int(n)
	}
	return DefaultMaxSubscriptions
}

// Subscriptions returns how many subscriptions session holds.
func (c *Changes) Subscriptions(session string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sub := c.subs[session]; sub != nil {
		return len(sub.uris)
	}
	return 0
}

// room reports whether session may subscribe to uri (canonical): it holds
// it already, or fewer than the limit.
func (c *Changes) room(session, uri string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	sub := c.subs[session]
	return sub == nil || sub.uris[uri] || len(sub.uris) < c.MaxSubscriptions()
}

// Attach starts notifying the sessions of srv and tracks subscriptions
// through hooks (which srv must have been built with).
func (c *Changes) Attach(srv *server.MCPServer, hooks *server.Hooks) {
	hooks.AddBeforeSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest) {
		if s := server.ClientSessionFromContext(ctx); s != nil && req.Params.URI != "" {
			c.mu.Lock()
			sub := c.subs[s.SessionID()]
			if sub == nil {
				sub = &subscriber{srv: srv, uris: map[string]bool{}}
				c.subs[s.SessionID()] = sub
			}
			// Deps.CheckSubscribe refused what is over the limit; this
			// bounds the map whatever comes (concurrent subscribes).
			if u := canonical(req.Params.URI); sub.uris[u] || len(sub.uris) < c.MaxSubscriptions() {
				sub.uris[u] = true
			}
			c.mu.Unlock()
		}
	})
	hooks.AddBeforeUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest) {
		if s := server.ClientSessionFromContext(ctx); s != nil {
			c.mu.Lock()
			if sub := c.subs[s.SessionID()]; sub != nil {
				delete(sub.uris, canonical(req.Params.URI))
			}
			c.mu.Unlock()
		}
	})
	// Protocol 2026-07-28 has no resources/subscribe: a client names the
	// notes it follows in a subscriptions/listen request, whose response
	// stream carries their notifications/resources/updated for as long as
	// it stays open. mcp-go serves each such request with a session of its
	// own that has no ID (so SendNotificationToSpecificClient cannot reach
	// it) and keeps no resource subscriptions for it: the stream is kept
	// here, by its session, until the request ends.
	hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest) {
		s := server.ClientSessionFromContext(ctx)
		if s == nil || len(req.Params.Notifications.ResourceSubscriptions) == 0 {
			return
		}
		sub := &subscriber{srv: srv, uris: map[string]bool{}}
		for _, u := range req.Params.Notifications.ResourceSubscriptions {
			// server's gate refused a list over the limit; this bounds
			// the map whatever comes.
			if len(sub.uris) < c.MaxSubscriptions() {
				sub.uris[canonical(u)] = true
			}
		}
		c.mu.Lock()
		c.listens[s] = sub
		c.mu.Unlock()
		context.AfterFunc(ctx, func() {
			c.mu.Lock()
			if c.listens[s] == sub {
				delete(c.listens, s)
			}
			c.mu.Unlock()
		})
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		c.mu.Lock()
		delete(c.subs, s.SessionID())
		c.mu.Unlock()
	})
	c.mu.Lock()
	c.servers = append(c.servers, srv)
	c.mu.Unlock()
}

// CanonicalURI is the URI notifications/resources/updated names for a
// subscription to uri (in any ID form of a note): an HTTP front that
// relays subscriptions to the vault's owner matches the owner's
// notifications with it.
func CanonicalURI(uri string) string { return canonical(uri) }

// canonical is the URI of the note a subscribed URI names, so that a
// subscription in another ID form (vault://note/Concepts/BM25) hears of
// the note's changes.
func canonical(uri string) string {
	id := idOf(uri)
	if id == "" {
		return uri
	}
	id = strings.TrimPrefix(strings.ToLower(id), "./")
	if !strings.HasSuffix(id, ".md") {
		id += ".md"
	}
	return URI(id)
}

// Store returns s, telling c of every note it writes or deletes. The
// result is a core.StagedWriter when s is one.
func (c *Changes) Store(s core.GraphStore) core.GraphStore {
	return core.ObserveWrites(s, changeObserver{c})
}

// changeObserver is how Changes hears of the store's writes.
type changeObserver struct{ c *Changes }

func (o changeObserver) BeforeWrite(ctx context.Context, s core.GraphStore, project string) {
	o.c.load(ctx, s, project)
}

func (o changeObserver) NotesWritten(ids []string, deleted bool) { o.c.changed(ids, deleted) }

// load reads the IDs in the store once, before the first write it sees,
// so that a note that appears can be told from one rewritten.
func (c *Changes) load(ctx context.Context, s core.GraphStore, project string) {
	c.mu.Lock()
	loaded := c.known != nil
	c.mu.Unlock()
	if loaded {
		return
	}
	hashes, err := s.NoteHashes(ctx, project)
	if err != nil {
		return // tried again at the next write
	}
	c.mu.Lock()
	if c.known == nil {
		c.known = make(map[string]bool, len(hashes))
		for id := range hashes {
			c.known[id] = true
		}
	}
	c.mu.Unlock()
}

// changed records written (or deleted) notes and notifies the clients.
func (c *Changes) changed(ids []string, deleted bool) {
	c.mu.Lock()
	listChanged := false
	type update struct {
		srv          *server.MCPServer
		session, uri string
	}
	var notify []update
	type listenUpdate struct {
		session server.ClientSession
		uri     string
	}
	var streams []listenUpdate
	for _, id := range ids {
		if c.known != nil && c.known[id] == deleted {
			listChanged = true
		}
		if c.known != nil {
			if deleted {
				delete(c.known, id)
			} else {
				c.known[id] = true
			}
		}
		uri := URI(id)
		for session, sub := range c.subs {
			if sub.uris[uri] {
				notify = append(notify, update{sub.srv, session, uri})
			}
		}
		for session, sub := range c.listens {
			if sub.uris[uri] {
				streams = append(streams, listenUpdate{session, uri})
			}
		}
	}
	servers := c.servers
	c.mu.Unlock()
	for _, n := range notify {
		_ = n.srv.SendNotificationToSpecificClient(n.session, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": n.uri})
	}
	for _, n := range streams {
		NotifyStream(n.session, n.uri)
	}
	if listChanged {
		for _, srv := range servers {
			srv.SendNotificationToAllClients(string(mcp.MethodNotificationResourcesListChanged), nil)
		}
	}
}

// NotifyStream sends notifications/resources/updated for uri on the
// subscriptions/listen stream session serves (mcp-go tags it with the
// stream's subscription ID as it writes it). A stream whose queue is full
// misses it, as mcp-go's own sends do. A relaying front (server.Forward)
// sends its streams' updates through it too.
func NotifyStream(session server.ClientSession, uri string) {
	if h, ok := session.(server.SessionWithStreamableHTTPConfig); ok {
		h.UpgradeToSSEWhenReceiveNotification()
	}
	n := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationResourceUpdated),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"uri": uri}},
		},
	}
	select {
	case session.NotificationChannel() <- n:
	default:
	}
}

// Changed tells the subscribers of the notes ids that they were written
// (or deleted) by another process (core.ChangeFollower: a replica behind
// the same balancer, a sync worker), whose writes do not pass through
// Store.
func (c *Changes) Changed(ids []string, deleted bool) { c.changed(ids, deleted) }

// ChangedUnknown tells every subscriber that its notes may have changed
// and every session that the list may have: another process wrote more
// than can be told note by note.
func (c *Changes) ChangedUnknown() {
	c.mu.Lock()
	uris := map[string]bool{}
	for _, sub := range c.subs {
		for u := range sub.uris {
			uris[u] = true
		}
	}
	for _, sub := range c.listens {
		for u := range sub.uris {
			uris[u] = true
		}
	}
	c.known = nil // read again before the next write seen
	c.mu.Unlock()
	ids := make([]string, 0, len(uris))
	for u := range uris {
		ids = append(ids, idOf(u))
	}
	c.changed(ids, false)
	c.mu.Lock()
	servers := c.servers
	c.mu.Unlock()
	for _, srv := range servers {
		srv.SendNotificationToAllClients(string(mcp.MethodNotificationResourcesListChanged), nil)
	}
}

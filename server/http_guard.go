package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/vaultgraph/vaultgraph/internal/jsonrpc"
)

// checkHost refuses (403) a request that reached a loopback address with a
// Host header that is not a loopback name, unless the host is in
// opts.AllowedHosts: a web page whose domain was rebound to 127.0.0.1 (DNS
// rebinding) must not reach a server on the user's machine. mcp-go's own
// check, turned off here, refuses the same requests but knows no allowed
// hosts, so it also refused a reverse proxy on the same host that keeps the
// client's Host header.
func (h *HTTPServer) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if ok && local != nil && isLoopbackAddr(local.String()) && !isLoopbackAddr(r.Host) && !h.hostAllowed(r.Host) {
			h.logger.Info("http request refused: Host not allowed", "host", r.Host, "remote", r.RemoteAddr)
			h.opts.Metrics.HTTPRefused("host")
			writeHTTPError(w, http.StatusForbidden, nil, CodeForbidden, fmt.Sprintf(
				"Host %q is not allowed on this local server (DNS rebinding protection); connect to localhost or 127.0.0.1, or, behind a reverse proxy that keeps the Host header, add the host to http.allowed_hosts", r.Host))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether host (with or without a port) is one of
// opts.AllowedHosts, which may name a port or not.
func (h *HTTPServer) hostAllowed(host string) bool {
	bare := host
	if hn, _, err := net.SplitHostPort(host); err == nil {
		bare = hn
	}
	for _, a := range h.opts.AllowedHosts {
		if strings.EqualFold(a, host) || strings.EqualFold(a, bare) {
			return true
		}
	}
	return false
}

// checkOrigin refuses (403) a request whose Origin header is present and
// not allowed, as the MCP transport spec requires of servers: browsers
// send Origin with every cross-site request, so a page on another site
// cannot drive the server through a user's browser. Allowed are origins on
// a loopback host (a local tool such as the MCP Inspector) and those in
// opts.AllowedOrigins ("*" allows every origin). Clients that are not
// browsers send no Origin and are not affected.
func (h *HTTPServer) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && !h.originAllowed(origin) {
			h.logger.Info("http request refused: Origin not allowed", "origin", origin, "remote", r.RemoteAddr)
			h.opts.Metrics.HTTPRefused("origin")
			writeHTTPError(w, http.StatusForbidden, nil, CodeForbidden, fmt.Sprintf(
				"Origin %q is not allowed; a browser-based client must be served from localhost, or its origin listed in http.allowed_origins", origin))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *HTTPServer) originAllowed(origin string) bool {
	for _, a := range h.opts.AllowedOrigins {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // "null" and other opaque origins
	}
	return isLoopbackAddr(u.Host)
}

// guardMessages reads a POST's JSON-RPC message (the body is already
// capped) and refuses what must not reach mcp-go: a key given twice
// (strictRefusal), a request without a session or with a session of
// another token, an initialize over a session limit. GET and DELETE must
// name a session of their token too. Requests of protocol 2026-07-28 and
// later have no sessions and only get the message check.
func (h *HTTPServer) guardMessages(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var head messageHead
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				var tooLarge *http.MaxBytesError
				if errors.As(err, &tooLarge) {
					h.opts.Metrics.HTTPRefused("too_large")
					writeHTTPError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest, h.tooLargeMessage())
					return
				}
				writeHTTPError(w, http.StatusBadRequest, nil, mcp.PARSE_ERROR, "the request body could not be read")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var perr *jsonrpc.Error
			var ph jsonrpc.Head
			decoded := json.Unmarshal(body, &head) == nil
			if decoded {
				ph, perr = jsonrpc.Classify(body, head.ID, head.Method)
			} else {
				ph, perr = jsonrpc.Parse(body) // a batch, or a method that is no string, is refused below
			}
			switch {
			case perr != nil && perr.Code == jsonrpc.CodeParseError, perr == nil && !decoded:
				next.ServeHTTP(w, r) // not JSON, or a shape mcp-go answers itself
				return
			case perr != nil:
				// A batch, JSON that is not an object, "id": null on a
				// method: refused as on the line transports (screen).
				h.logger.Info("http request refused", "reason", perr.Message, "remote", r.RemoteAddr)
				h.opts.Metrics.HTTPRefused("invalid_request")
				writeHTTPError(w, http.StatusBadRequest, invalidID(ph), perr.Code, perr.Message)
				return
			}
			if ref, refused := strictRefusal(body, head.ID, head.Method); refused {
				id := head.ID
				if ref.nullID {
					id = nil
				}
				h.logger.Info("http request refused", "method", head.Method, "reason", ref.msg, "remote", r.RemoteAddr)
				h.opts.Metrics.HTTPRefused(ref.reason)
				writeHTTPError(w, http.StatusBadRequest, id, ref.code, ref.msg)
				return
			}
		}
		if modernRequest(r, head) {
			next.ServeHTTP(w, r)
			return
		}
		p, _ := principalFrom(r.Context())
		id := r.Header.Get(sessionHeader)
		switch {
		case r.Method == http.MethodPost && head.Method == string(mcp.MethodInitialize):
			res, err := h.sessions.reserve(p.token, clientAddr(r))
			if err != nil {
				var limit *errSessionLimit
				errors.As(err, &limit)
				h.logger.Warn("http session refused: limit reached", "per_token", limit.perToken, "per_client", limit.perClient, "limit", limit.limit, "remote", r.RemoteAddr)
				h.opts.Metrics.SessionRefused(limitReason(limit))
				writeHTTPError(w, limit.status(), head.ID, CodeTooManySessions, err.Error())
				return
			}
			defer h.sessions.release(res) // no-op once mcp-go took it
			r = r.WithContext(withReservation(r.Context(), res))
		case r.Method != http.MethodPost && r.Method != http.MethodGet && r.Method != http.MethodDelete:
			// HEAD, OPTIONS...: mcp-go answers them without a session.
		case id == "":
			h.opts.Metrics.HTTPRefused("no_session")
			writeHTTPError(w, http.StatusBadRequest, head.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
				"missing %s header: send initialize first, then the session ID its answer carries in %s with every request", sessionHeader, sessionHeader))
			return
		case !h.sessions.ownedBy(id, p.token):
			// Unknown, expired, ended, or another token's: the same answer,
			// so a token learns nothing about other tokens' sessions.
			h.opts.Metrics.HTTPRefused("session_not_found")
			writeHTTPError(w, http.StatusNotFound, head.ID, CodeSessionNotFound, fmt.Sprintf(
				"session not found: it was closed, or unused for longer than %s; send initialize again (without %s) to start a new session", h.sessions.idle, sessionHeader))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// messageHead is what the guard reads of a JSON-RPC message.
type messageHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta *mcp.Meta `json:"_meta"`
	} `json:"params"`
}

// modernRequest reports whether r speaks protocol 2026-07-28 or later
// (no sessions), by its header or its message's _meta, as mcp-go decides.
func modernRequest(r *http.Request, head messageHead) bool {
	return mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) || mcp.IsModernProtocol(head.Params.Meta.ProtocolVersion())
}

func limitReason(e *errSessionLimit) string {
	switch {
	case e.perClient:
		return "per_client"
	case e.perToken:
		return "per_token"
	}
	return "total"
}

// clientAddr is the IP address a request came from (its port left out: a
// client opens a connection per request or per stream), for the
// per-client session cap.
func clientAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

func (h *HTTPServer) tooLargeMessage() string {
	return fmt.Sprintf("request too large: over the limit of %d bytes for one message; send less at once", h.opts.MaxBodyBytes)
}

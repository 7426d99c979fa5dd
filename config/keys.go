package config

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/neo4jdefaults"
	"github.com/vaultgraph/vaultgraph/internal/toolset"
)

// FlagScope says which commands carry a key's command-line flag.
type FlagScope int

const (
	// NoFlag: the key is set by file or environment only (all secrets).
	NoFlag FlagScope = iota
	// FlagGlobal: a persistent flag of the root command, on every command.
	FlagGlobal
	// FlagServe: a flag of the serve command only.
	FlagServe
	// FlagSync: the flags of the sync command (the keys of FlagServeSync).
	FlagSync
	// FlagServeSync: a flag of serve and of sync.
	FlagServeSync
)

// EnvPrefix starts the name of every environment variable read by Load.
const EnvPrefix = "VAULTGRAPH_"

// key declares one setting. Each setting is declared exactly once, here; its
// default, environment variable, flag, validation, display and template
// entry all derive from this declaration.
type key struct {
	name string // dotted YAML path and viper key, e.g. "neo4j.uri"
	help string // one line: flag usage, template comment, status
	doc  []string

	// def is the default in the field's Go type; a func() any is evaluated
	// at load time (state_dir depends on the environment).
	def any
	// defDoc replaces the default in the template when def is computed.
	defDoc string
	// example replaces the template's "name: default" line (for tokens).
	example []string

	// field returns a pointer to the Config field holding the value; its
	// type (*string, *Secret, *bool, *int, *time.Duration, *[]string,
	// *map[string]string, *[]Token) decides how raw values are decoded.
	field   func(*Config) any
	path    bool     // a *string or each of a *[]string holds a path: ~ expanded, made absolute
	allowed []string // the values a *string or each element of a *[]string may take
	min     int      // least value of an *int
	check   func(*Config) []Problem

	flag  string // flag name, "" = none
	scope FlagScope
}

// keys is the table of every setting, in the order the template, status and
// String show them. Keys sharing a parent (neo4j.*) are kept together.
var keys = []key{
	{
		name:  "vault",
		help:  "path of the vault folder (markdown notes); required by serve, sync and call",
		def:   "",
		field: func(c *Config) any { return &c.Vault },
		path:  true,
		check: checkVault,
		flag:  "vault", scope: FlagGlobal,
	},
	{
		name: "projects",
		help: "more vaults to serve as projects of the entities toolset (spec 003), besides vault",
		doc: []string{
			"Each is a path, or a mapping such as {path: ~/notes/work, name: Work, slug: work,",
			"description: Team notes, id: <UUID>}; name defaults to the folder's name,",
			"slug to the name slugified, id to a stable UUID derived from the slug. An entry with vault's path",
			"describes the vault's own project. The graph and kb tools act in the first project (vault).",
			"In the environment: VAULTGRAPH_PROJECTS=/srv/a,/srv/b.",
		},
		def:     []ProjectConfig{},
		example: []string{"projects: []"},
		field:   func(c *Config) any { return &c.Projects },
		check:   checkProjects,
	},
	{
		name:    "store",
		help:    "graph store (embedded runs in process, nothing to install)",
		def:     StoreEmbedded,
		field:   func(c *Config) any { return &c.Store },
		allowed: []string{StoreEmbedded, StoreNeo4j},
		flag:    "store", scope: FlagGlobal,
	},
	{
		name: "state_dir",
		help: "folder where the embedded store keeps its state",
		doc: []string{
			"Default: $XDG_STATE_HOME/vaultgraph, or ~/.local/state/vaultgraph when XDG_STATE_HOME is unset.",
			"Shared by all vaults; the store keeps each vault's state apart.",
		},
		def:    func() any { return defaultStateDir() },
		defDoc: "~/.local/state/vaultgraph",
		field:  func(c *Config) any { return &c.StateDir },
		path:   true,
		check:  checkStateDir,
		flag:   "state-dir", scope: FlagGlobal,
	},
	{
		name:  "neo4j.uri",
		help:  "Neo4j URI, used when store is neo4j",
		doc:   []string{"Schemes: " + strings.Join(neo4jSchemes, ", ") + "; no credentials in the URI."},
		def:   "bolt://127.0.0.1:7687",
		field: func(c *Config) any { return &c.Neo4j.URI },
		check: checkNeo4jURI,
	},
	{
		name:  "neo4j.user",
		help:  "Neo4j user name",
		def:   "neo4j",
		field: func(c *Config) any { return &c.Neo4j.User },
	},
	{
		name:  "neo4j.password",
		help:  "Neo4j password (secret: prefer the environment variable)",
		def:   "",
		field: func(c *Config) any { return &c.Neo4j.Password },
	},
	{
		name:  "neo4j.database",
		help:  "Neo4j database name",
		def:   "neo4j",
		field: func(c *Config) any { return &c.Neo4j.Database },
	},
	{
		name:  "neo4j.max_connections",
		help:  "largest number of pooled connections to Neo4j (at least 1)",
		def:   neo4jdefaults.MaxConnections,
		min:   1,
		field: func(c *Config) any { return &c.Neo4j.MaxConnections },
	},
	{
		name:  "neo4j.timeout",
		help:  "how long to wait for a Neo4j connection or transaction (a duration such as 30s or 2m)",
		def:   neo4jdefaults.Timeout,
		field: func(c *Config) any { return &c.Neo4j.Timeout },
	},
	{
		name: "neo4j.tls_ca_file",
		help: "PEM file of a private certificate authority to trust for neo4j+s:// and bolt+s:// (besides the system's); empty: the system's only",
		doc: []string{
			"For a server whose certificate an in-house CA signed. The +ssc schemes trust any certificate",
			"and need no file.",
		},
		def:   "",
		field: func(c *Config) any { return &c.Neo4j.TLSCAFile },
		path:  true,
		check: checkNeo4jTLSCAFile,
		flag:  "neo4j-tls-ca-file", scope: FlagGlobal,
	},
	{
		name: "neo4j.vector_cache",
		help: "most note vectors of one project a process keeps in memory to search them exactly (0: none)",
		doc: []string{
			"Each costs 4 bytes per dimension (1 KiB with the built-in model). A project with more,",
			"or 0 here, is searched through Neo4j's approximate vector index (slower: see docs/SEARCH.md).",
		},
		def:   250000,
		min:   0,
		field: func(c *Config) any { return &c.Neo4j.VectorCache },
	},
	{
		name: "http.addr",
		help: "serve MCP over streamable HTTP at this address (host:port); empty serves over stdio",
		def:  "",
		field: func(c *Config) any {
			return &c.HTTP.Addr
		},
		check: checkListenAddr,
		flag:  "http", scope: FlagServe,
	},
	{
		name: "http.tokens",
		help: "bearer tokens HTTP clients must send (secret: prefer the environment variable)",
		doc: []string{
			"Each is a string, or {token: ..., read_only: true} for a token that gets read-only tools.",
			"A string starting with ro: is read-only too; the environment variable is a comma list,",
			"e.g. VAULTGRAPH_HTTP_TOKENS=s3cret,ro:r3ader.",
		},
		def: []Token(nil),
		example: []string{
			"tokens:",
			"  - change-me-full-access",
			"  - {token: change-me-read-only, read_only: true}",
		},
		field: func(c *Config) any { return &c.HTTP.Tokens },
		check: checkTokensNeeded,
	},
	{
		name: "http.allowed_origins",
		help: "browser origins (scheme://host:port) allowed to call the HTTP server besides those on localhost; * allows all",
		doc: []string{
			"A request whose Origin header is another one gets 403 (DNS rebinding and cross-site protection).",
			"Clients that are not browsers send no Origin. E.g. VAULTGRAPH_HTTP_ALLOWED_ORIGINS=https://app.example.com.",
		},
		def:   []string{},
		field: func(c *Config) any { return &c.HTTP.AllowedOrigins },
		check: checkAllowedOrigins,
	},
	{
		name: "http.allowed_hosts",
		help: "Host header values accepted on a loopback connection besides localhost (a reverse proxy's public name)",
		doc: []string{
			"A reverse proxy on the same machine that forwards to 127.0.0.1 and keeps the client's Host",
			"(vault.example.com) is refused with 403 unless that host is listed here, e.g. [vault.example.com].",
		},
		def:   []string{},
		field: func(c *Config) any { return &c.HTTP.AllowedHosts },
		check: checkAllowedHosts,
	},
	{
		name:  "http.session_idle_timeout",
		help:  "an HTTP session unused for this long is closed (the shim reconnects on its own)",
		def:   30 * time.Minute,
		field: func(c *Config) any { return &c.HTTP.SessionIdleTimeout },
	},
	{
		name:  "http.max_sessions",
		help:  "most HTTP sessions open at once (about 10 KB each); an initialize beyond it gets 503",
		def:   10000,
		min:   1,
		field: func(c *Config) any { return &c.HTTP.MaxSessions },
	},
	{
		name:  "http.max_sessions_per_token",
		help:  "most HTTP sessions one token may hold open; an initialize beyond it gets 429",
		def:   1000,
		min:   1,
		field: func(c *Config) any { return &c.HTTP.MaxSessionsPerToken },
	},
	{
		name: "http.max_sessions_per_client",
		help: "most HTTP sessions one token may hold open from one IP address (below the per-token cap); an initialize beyond it gets 429",
		doc: []string{
			"So that one client of a shared token cannot take all of the token's sessions. Behind a reverse",
			"proxy every client has the proxy's address: raise it to the token's cap there.",
		},
		def:   100,
		min:   1,
		field: func(c *Config) any { return &c.HTTP.MaxSessionsPerClient },
	},
	{
		name:  "http.tls_cert",
		help:  "PEM certificate file: serve HTTPS (with http.tls_key) instead of plain HTTP",
		def:   "",
		field: func(c *Config) any { return &c.HTTP.TLSCert },
		path:  true,
		check: checkTLS,
	},
	{
		name:  "http.tls_key",
		help:  "PEM private key file of http.tls_cert",
		def:   "",
		field: func(c *Config) any { return &c.HTTP.TLSKey },
		path:  true,
	},
	{
		name: "http.oauth.issuer",
		help: "OAuth authorization server (issuer URL) whose JWT access tokens serve --http accepts beside http.tokens",
		doc: []string{
			"serve then publishes /.well-known/oauth-protected-resource (RFC 9728) naming it, as the MCP",
			"authorization spec asks, and checks each token's signature (the issuer's JWKS), iss, aud,",
			"exp/nbf and scopes. E.g. https://login.example.com/realms/team. docs/TEAM.md has examples.",
		},
		def:   "",
		field: func(c *Config) any { return &c.HTTP.OAuth.Issuer },
		check: checkOAuth,
	},
	{
		name:  "http.oauth.audience",
		help:  "the aud claim vaultgraph's access tokens carry (required with http.oauth.issuer)",
		def:   "",
		field: func(c *Config) any { return &c.HTTP.OAuth.Audience },
	},
	{
		name:  "http.oauth.read_scope",
		help:  "the scope that grants the read tools",
		def:   "vault:read",
		field: func(c *Config) any { return &c.HTTP.OAuth.ReadScope },
	},
	{
		name:  "http.oauth.write_scope",
		help:  "the scope that grants every tool, writes included",
		def:   "vault:write",
		field: func(c *Config) any { return &c.HTTP.OAuth.WriteScope },
	},
	{
		name:  "http.oauth.resource",
		help:  "public URL of the MCP endpoint (https://vault.example.com/mcp); empty: taken from each request's Host",
		def:   "",
		field: func(c *Config) any { return &c.HTTP.OAuth.Resource },
	},
	{
		name: "http.behind_proxy",
		help: "a TLS-terminating reverse proxy is in front: allow OAuth over plain HTTP off loopback, trust X-Forwarded-Proto/Host",
		def:  false,
		field: func(c *Config) any {
			return &c.HTTP.BehindProxy
		},
	},
	{
		name: "changes.record_actor",
		help: "record who made each change in the change log (recent_changes, the web view): a signed-in person, token:<n>, local or outside",
		doc: []string{
			"Off, the log keeps what changed and when, and no one's name, subject or email.",
		},
		def:   true,
		field: func(c *Config) any { return &c.RecordActor },
	},
	{
		name: "metrics.addr",
		help: "serve Prometheus metrics at http://ADDR/metrics (host:port) while serve or sync --watch runs; empty: off",
		doc: []string{
			"An address of its own. A port alone (:9464) listens on 127.0.0.1. Any address that is not",
			"loopback (0.0.0.0:9464, a LAN address) needs metrics.token, else serve refuses to start.",
		},
		def:   "",
		field: func(c *Config) any { return &c.Metrics.Addr },
		check: checkMetricsAddr,
		flag:  "metrics-addr", scope: FlagServeSync,
	},
	{
		name: "metrics.token",
		help: "bearer token a scraper must send to /metrics (Authorization: Bearer TOKEN); required when metrics.addr is not loopback",
		doc: []string{
			"Prometheus: authorization: {credentials: TOKEN} in the scrape config.",
		},
		def:   "",
		field: func(c *Config) any { return &c.Metrics.Token },
	},
	{
		name: "resources.max_subscriptions",
		help: "most resources/subscribe one MCP session may hold; a subscription beyond it is refused with a JSON-RPC error",
		doc: []string{
			"Each is a note's URI (a note that exists); unsubscribe from notes no longer followed to make room.",
		},
		def:   1000,
		min:   1,
		field: func(c *Config) any { return &c.Resources.MaxSubscriptions },
	},
	{
		name:  "read_only",
		help:  "expose only tools that do not write to the vault or the store",
		def:   false,
		field: func(c *Config) any { return &c.ReadOnly },
		flag:  "read-only", scope: FlagGlobal,
	},
	{
		name:    "toolsets",
		help:    "toolsets to expose (all means every one)",
		def:     toolset.Defaults(),
		field:   func(c *Config) any { return &c.Toolsets },
		allowed: toolsetNames,
		check:   checkToolsets,
		flag:    "toolsets", scope: FlagGlobal,
	},
	{
		name: "tools",
		help: "single tools to serve besides those of the enabled toolsets (tool or toolset/tool)",
		doc: []string{
			"E.g. toolsets: [graph] with tools: [read_note] adds one kb tool; an unknown name stops the server.",
		},
		def:   []string{},
		field: func(c *Config) any { return &c.Tools },
		flag:  "tools", scope: FlagGlobal,
	},
	{
		name:  "exclude_tools",
		help:  "tools not to serve (tool, toolset/tool, or the name a rename gives it)",
		def:   []string{},
		field: func(c *Config) any { return &c.ExcludeTools },
		flag:  "exclude-tools", scope: FlagGlobal,
	},
	{
		name: "tool_renames",
		help: "tools to expose under another name, old: new",
		doc: []string{
			"The default renames the memory toolset's search to memory_search when both graph",
			"and memory are enabled, so it does not clash with graph's search. {} renames nothing.",
			"In the environment: VAULTGRAPH_TOOL_RENAMES=search=memory_search,old=new.",
		},
		def:   map[string]string{"search": "memory_search"},
		field: func(c *Config) any { return &c.ToolRenames },
		check: checkToolRenames,
	},
	{
		name:    "embedding.provider",
		help:    "embedding provider for semantic search; none hides the tools that need it",
		def:     EmbeddingBuiltin,
		field:   func(c *Config) any { return &c.Embedding.Provider },
		allowed: []string{EmbeddingBuiltin, EmbeddingOllama, EmbeddingOpenAI, EmbeddingNone},
	},
	{
		name:  "embedding.url",
		help:  "base URL of the ollama or openai-compatible service; empty uses the provider's default",
		def:   "",
		field: func(c *Config) any { return &c.Embedding.URL },
		check: checkEmbeddingURL,
	},
	{
		name:  "embedding.model",
		help:  "embedding model name; empty uses the provider's default (builtin: minilm, the in-process transformer; static: its static table alone)",
		def:   "",
		field: func(c *Config) any { return &c.Embedding.Model },
	},
	{
		name:  "embedding.api_key",
		help:  "API key of the embedding service (secret: prefer the environment variable)",
		def:   "",
		field: func(c *Config) any { return &c.Embedding.APIKey },
	},
	{
		name:  "watch",
		help:  "while serving, keep the store in sync with the vault as files change",
		doc:   []string{"sync ignores this key: it watches only when given --watch."},
		def:   true,
		field: func(c *Config) any { return &c.Watch },
		flag:  "watch", scope: FlagServe,
	},
	{
		name: "sync.allow_foreign_deletes",
		help: "let a full sync delete notes of a project last synced from another host or vault path",
		doc: []string{"Without it such a sync refuses and says why: two hosts whose vaults share an identity",
			"(a copied .vaultgraph/vault.json) would otherwise erase each other's notes."},
		def:   false,
		field: func(c *Config) any { return &c.AllowForeignDeletes },
		flag:  "force", scope: FlagServeSync,
	},
	{
		name:  "ignore",
		help:  "glob patterns of vault paths to skip (path.Match syntax, relative to the vault, with /)",
		def:   []string{},
		field: func(c *Config) any { return &c.Ignore },
		check: checkIgnore,
	},
	{
		name: "naming.filename",
		help: "file name of a note created or renamed by title: title (as Obsidian) or slug (lowercased, hyphens)",
		doc: []string{
			"title: \"Audit Note From Call\" is Audit Note From Call.md (characters no OS or Obsidian allows in a",
			"file name become -); slug: audit-note-from-call.md, vaultgraph's naming up to 0.1. The exact title is",
			"kept in frontmatter title: when the file name does not show it.",
		},
		def:     FileNameTitle,
		field:   func(c *Config) any { return &c.Naming.FileName },
		allowed: []string{FileNameTitle, FileNameSlug},
	},
	{
		name: "documents.allowed_roots",
		help: "folders besides the vault whose files index_file and index_directory may read",
		doc: []string{
			"The vault is always allowed; any other path, a .. escape or a symbolic link leading out is refused.",
			"In the environment: VAULTGRAPH_DOCUMENTS_ALLOWED_ROOTS=/srv/docs,/home/me/papers.",
		},
		def:   []string{},
		field: func(c *Config) any { return &c.Documents.AllowedRoots },
		path:  true,
	},
	{
		name:  "entities.type_key",
		help:  "frontmatter key that declares a note's entity type (guide, concept, project, news)",
		def:   "type",
		field: func(c *Config) any { return &c.Entities.TypeKey },
		check: checkTypeKey,
	},
	{
		name:    "log.level",
		help:    "least severity logged to stderr",
		def:     "info",
		field:   func(c *Config) any { return &c.Log.Level },
		allowed: []string{"debug", "info", "warn", "error"},
		flag:    "log-level", scope: FlagGlobal,
	},
	{
		name:    "log.format",
		help:    "log line format",
		def:     LogText,
		field:   func(c *Config) any { return &c.Log.Format },
		allowed: []string{LogText, LogJSON},
		flag:    "log-format", scope: FlagGlobal,
	},
}

// toolsetNames are the names the toolsets key accepts.
var toolsetNames = append(slices.Clone(Toolsets), ToolsetAll)

// env is the environment variable of the key: VAULTGRAPH_ plus the name in
// upper case with dots as underscores.
func (k *key) env() string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(k.name, ".", "_"))
}

// defaultValue returns the key's default, computing it if needed.
func (k *key) defaultValue() any {
	if f, ok := k.def.(func() any); ok {
		return f()
	}
	return k.def
}

// isSecret reports whether the key holds a secret (and so has no flag and
// never shows its value).
func (k *key) isSecret() bool {
	switch k.field(&Config{}).(type) {
	case *Secret, *[]Token:
		return true
	}
	return false
}

// lookupKey returns the key named name, or nil.
func lookupKey(name string) *key {
	for i := range keys {
		if keys[i].name == name {
			return &keys[i]
		}
	}
	return nil
}

// keyIndex returns the position of the key named by a problem (which may
// carry an index, "http.tokens[1]"), or -1 for problems about no key.
func keyIndex(problemKey string) int {
	name, _, _ := strings.Cut(problemKey, "[")
	for i := range keys {
		if keys[i].name == name {
			return i
		}
	}
	return -1
}

// sources names where the key can be set, for messages.
func (k *key) sources() string {
	s := fmt.Sprintf("env %s or %q in the config file", k.env(), k.name)
	if k.flag != "" {
		s = "flag --" + k.flag + ", " + s
	}
	return s
}

// defaultStateDir is $XDG_STATE_HOME/vaultgraph, XDG_STATE_HOME defaulting to
// ~/.local/state; "" if neither is known.
func defaultStateDir() string {
	return xdgDir("XDG_STATE_HOME", ".local/state", "vaultgraph")
}

// envSet reports whether the key's environment variable is set and not
// empty (viper treats an empty variable as unset; so do we).
func (k *key) envSet() bool {
	return os.Getenv(k.env()) != ""
}

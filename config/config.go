package config

import (
	"slices"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/toolset"
)

// Store kinds, the values of the store key.
const (
	StoreEmbedded = "embedded" // memstore, persisted under StateDir
	StoreNeo4j    = "neo4j"    // neo4jstore, reached through Neo4j
)

// Toolset names, the values of the toolsets key, as internal/toolset
// declares them. ToolsetAll is accepted in input only: Load expands it, so
// Config.Toolsets never holds it.
const (
	ToolsetGraph    = toolset.Graph
	ToolsetKB       = toolset.KB
	ToolsetEdit     = toolset.Edit
	ToolsetEntities = toolset.Entities
	ToolsetMemory   = toolset.Memory
	ToolsetAll      = toolset.All
)

// Toolsets lists every toolset in canonical order (internal/toolset): the
// order Config.Toolsets is kept in and the order ToolsetAll expands to.
var Toolsets = toolset.IDs()

// Embedding providers, the values of embedding.provider.
const (
	EmbeddingBuiltin = "builtin" // local, in-process embedder; no service needed
	EmbeddingOllama  = "ollama"  // an Ollama server
	EmbeddingOpenAI  = "openai"  // any OpenAI-compatible /embeddings endpoint
	EmbeddingNone    = "none"    // no embeddings: semantic search tools are hidden
)

// Log formats, the values of log.format.
const (
	LogText = "text"
	LogJSON = "json"
)

// Config is vaultgraph's whole configuration, as Load returns it: defaults,
// file, environment and flags merged, paths made absolute and toolsets
// expanded. Its String and LogValue redact every secret.
type Config struct {
	// Vault is the absolute path of the vault folder; empty if not set.
	Vault string
	// Projects are vaults served as projects of the entity toolset (spec
	// 003) besides Vault; see ProjectConfig and ServedProjects.
	Projects []ProjectConfig
	// Store is StoreEmbedded or StoreNeo4j.
	Store string
	// StateDir is the absolute directory where the embedded store keeps its
	// state. It is shared by every vault; the store keys its files by vault.
	StateDir string
	// Neo4j is used when Store is StoreNeo4j.
	Neo4j Neo4jConfig
	// HTTP configures serve's streamable HTTP transport.
	HTTP HTTPConfig
	// RecordActor keeps who made each change in the change log.
	RecordActor bool
	// Metrics configures the Prometheus metrics of serve --http.
	Metrics MetricsConfig
	// Resources configures the vault's notes as MCP resources.
	Resources ResourcesConfig
	// ReadOnly exposes only tools whose read-only hint is set.
	ReadOnly bool
	// Toolsets are the enabled toolsets, without duplicates, in the order of
	// the Toolsets variable.
	Toolsets []string
	// Tools are single tools served besides the enabled toolsets'
	// ("tool" or "toolset/tool"); ExcludeTools are tools not served.
	Tools, ExcludeTools []string
	// ToolRenames maps a tool's name to the name it is exposed under. The
	// default {search: memory_search} is meant for the memory toolset's
	// search, and applies when both graph and memory are enabled, so it does
	// not clash with graph's search. Tool names are lower case (the file's
	// keys are read case-insensitively).
	ToolRenames map[string]string
	// Embedding chooses and reaches the embedding provider.
	Embedding EmbeddingConfig
	// Watch makes serve keep the store in sync with the vault as files
	// change. (sync watches only with its own --watch flag.)
	Watch bool
	// AllowForeignDeletes lets a full sync delete notes of a project last
	// synced from another host or vault path (sync.allow_foreign_deletes,
	// --force); without it such a sync refuses.
	AllowForeignDeletes bool
	// Ignore holds glob patterns (path.Match syntax) of vault-relative,
	// slash-separated paths the vault scan skips.
	Ignore []string
	// Naming says how the files of notes created or renamed by title are
	// named.
	Naming NamingConfig
	// Documents configures the document index of the memory toolset.
	Documents DocumentsConfig
	// Log configures the one slog logger built in cmd.
	Log LogConfig
	// Entities configures how notes become entities (spec 003).
	Entities EntitiesConfig

	// File is the config file that was read, or "" if none was.
	File string

	// origins records where each key's value came from (see Origin).
	origins map[string]string
}

// NamingConfig says how note files are named.
type NamingConfig struct {
	// FileName is FileNameTitle (a note's file is its title, as in
	// Obsidian) or FileNameSlug (lowercased, hyphens for blanks).
	FileName string
}

// The values of naming.filename.
const (
	FileNameTitle = "title"
	FileNameSlug  = "slug"
)

// DocumentsConfig configures the document index (spec 004).
type DocumentsConfig struct {
	// AllowedRoots are absolute folders, besides the vault, whose files
	// may be indexed.
	AllowedRoots []string
}

// Neo4jConfig is how to reach Neo4j.
type Neo4jConfig struct {
	// URI has scheme neo4j, neo4j+s, neo4j+ssc, bolt, bolt+s or bolt+ssc.
	URI      string
	User     string
	Password Secret
	Database string
	// MaxConnections caps the driver's connection pool; at least 1.
	MaxConnections int
	// Timeout bounds connection acquisition and each transaction; positive.
	Timeout time.Duration
	// VectorCache is the most note vectors of one project mirrored in
	// memory for exact search; 0 mirrors none.
	VectorCache int
	// TLSCAFile is a PEM file of CAs trusted for the +s schemes besides
	// the system's; empty: the system's only.
	TLSCAFile string
}

// HTTPConfig configures the streamable HTTP transport of serve.
type HTTPConfig struct {
	// Addr is the listen address (host:port); empty means serve over stdio.
	Addr string
	// Tokens are the bearer tokens clients may present. A read-only token
	// gets only the tools a read-only server would expose.
	Tokens []Token
	// AllowedOrigins are browser origins allowed besides loopback ones;
	// "*" allows all.
	AllowedOrigins []string
	// AllowedHosts are Host header values accepted on a loopback
	// connection besides loopback names (a reverse proxy's public name).
	AllowedHosts []string
	// SessionIdleTimeout closes a session unused for this long.
	SessionIdleTimeout time.Duration
	// MaxSessions and MaxSessionsPerToken bound the open sessions;
	// MaxSessionsPerClient bounds those of one token from one address.
	MaxSessions, MaxSessionsPerToken, MaxSessionsPerClient int
	// TLSCert and TLSKey, both set, serve HTTPS (absolute paths).
	TLSCert, TLSKey string
	// OAuth makes serve an OAuth resource server (docs/TEAM.md).
	OAuth OAuthConfig
	// BehindProxy declares a TLS-terminating reverse proxy in front.
	BehindProxy bool
}

// OAuthConfig names the authorization server whose JWT access tokens the
// HTTP transport accepts, beside the static tokens.
type OAuthConfig struct {
	// Issuer is the authorization server's issuer URL; empty: no OAuth.
	Issuer string
	// Audience is the aud a token must carry.
	Audience string
	// ReadScope and WriteScope grant read tools, and all tools.
	ReadScope, WriteScope string
	// Resource is the public URL of /mcp; empty derives it per request.
	Resource string
}

// MetricsConfig configures the Prometheus metrics endpoint.
type MetricsConfig struct {
	// Addr is where serve --http serves /metrics (host:port); empty: off.
	// A port alone (":9464") listens on loopback.
	Addr string
	// Token, when set, is the bearer token a scraper must present.
	Token Secret
}

// ResourcesConfig configures the vault's notes as MCP resources.
type ResourcesConfig struct {
	// MaxSubscriptions bounds the resources/subscribe of one session.
	MaxSubscriptions int
}

// Token is one bearer token accepted by the HTTP transport.
type Token struct {
	Value    Secret
	ReadOnly bool
}

// EmbeddingConfig chooses the embedding provider.
type EmbeddingConfig struct {
	// Provider is one of EmbeddingBuiltin, EmbeddingOllama, EmbeddingOpenAI
	// or EmbeddingNone.
	Provider string
	// URL is the provider's base URL; empty means the provider's default.
	URL string
	// Model is the provider's model name; empty means the provider's default.
	Model  string
	APIKey Secret
}

// EntitiesConfig configures how notes become entities.
type EntitiesConfig struct {
	// TypeKey is the frontmatter key that declares a note's entity type.
	TypeKey string
}

// LogConfig configures logging.
type LogConfig struct {
	// Level is debug, info, warn or error.
	Level string
	// Format is LogText or LogJSON.
	Format string
}

// HasToolset reports whether the named toolset is enabled.
func (c *Config) HasToolset(name string) bool {
	return slices.Contains(c.Toolsets, name)
}

// Origin says where a key's value came from: "flag --NAME", "env NAME",
// the config file's path, or "default". It is "default" for a Config that
// Load did not build.
func (c *Config) Origin(key string) string {
	if o, ok := c.origins[key]; ok {
		return o
	}
	return originDefault
}

// Default returns the configuration made of the built-in defaults alone
// (state_dir derived from the environment), as a starting point for tests
// and for programs that build a Config without Load.
func Default() *Config {
	c := &Config{}
	for i := range keys {
		k := &keys[i]
		// Defaults decode without problems; TestDefaultsAreValid checks it.
		_ = k.decode(k.defaultValue(), c, "")
	}
	c.Toolsets = expandToolsets(c.Toolsets)
	return c
}

// Package config builds vaultgraph's one typed Config.
//
// Every setting is declared once, in the key table (keys.go). That table
// drives the defaults, the environment binding, the command-line flags, the
// validation, the redacted views (String, LogValue, Settings) and the
// commented file that `vaultgraph init` writes, so a key cannot be documented
// in one place and forgotten in another.
//
// Sources, lowest to highest precedence:
//
//  1. built-in defaults;
//  2. a YAML file: --config PATH, else $VAULTGRAPH_CONFIG, else
//     ./vaultgraph.yaml, else $XDG_CONFIG_HOME/vaultgraph/config.yaml
//     (XDG_CONFIG_HOME defaults to ~/.config); the first one found is used;
//  3. environment variables VAULTGRAPH_<KEY>, with the dots of nested keys
//     written as underscores (neo4j.uri is VAULTGRAPH_NEO4J_URI); an empty
//     variable counts as unset;
//  4. command-line flags (kebab-case: log.level is --log-level).
//
// In the environment and in flags a list is a comma-separated string
// (VAULTGRAPH_TOOLSETS=graph,memory), a mapping is old=new pairs separated by
// commas (VAULTGRAPH_TOOL_RENAMES=search=memory_search), and an HTTP token
// written as a plain string is read-only when it starts with "ro:"
// (VAULTGRAPH_HTTP_TOKENS=s3cret,ro:r3ad-only).
//
// Secrets (neo4j.password, http.tokens, embedding.api_key) are read from the
// environment or the file only, never from flags, which other users of the
// machine can see in the process list. They are held as Secret values whose
// String, text and slog forms are "[redacted]"; Reveal returns the value.
//
// Relative paths (vault, state_dir) are resolved against the folder of the
// config file when they come from it, and against the working directory when
// they come from a flag or the environment; a leading ~ is the home folder.
package config

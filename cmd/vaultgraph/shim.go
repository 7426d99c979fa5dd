package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
	"github.com/vaultgraph/vaultgraph/internal/oauthclient"
	"github.com/vaultgraph/vaultgraph/server"
)

// defaultTokenEnv holds the shim's bearer token unless --token-env names
// another variable.
const defaultTokenEnv = "VAULTGRAPH_TOKEN"

func newShimCommand(s streams) *cobra.Command {
	var target, tokenEnv, clientID string
	var login, logout bool
	cmd := &cobra.Command{
		Use:   "shim --url URL",
		Short: "Bridge a stdio MCP client to a remote vaultgraph HTTP server",
		Long: `shim lets a desktop client that only speaks MCP over stdio use a shared
"vaultgraph serve --http" server: it reads JSON-RPC from stdin, forwards each
message to URL over streamable HTTP, and writes the replies to stdout.

The bearer token is read from the environment variable named by --token-env
(default ` + defaultTokenEnv + `), never from a flag, so it does not show in the
process list. If --token-env is given, that variable must be set.

Without a token, against a server that uses OAuth (http.oauth.issuer), the
shim signs you in: it finds the authorization server from the server's 401,
opens your browser at its sign-in page (or prints the address), waits for the
redirect to a loopback port, and caches the tokens in your config folder
(0600), refreshing them; it never prints them. --login signs in ahead of time
(before a desktop client starts the shim), --logout forgets the tokens.
--client-id names the OAuth client registered for vaultgraph (a public client
allowed loopback redirects).

When the server restarts or the connection drops, the shim reconnects and
initializes a new session on the client's behalf. Errors reach the client as
JSON-RPC errors: -32000 server unreachable, -32001 token refused (HTTP 401),
-32002 any other HTTP error.`,
		Example: `  VAULTGRAPH_TOKEN=s3cret vaultgraph shim --url https://vault.example.com/mcp
  vaultgraph shim --url http://127.0.0.1:8080/mcp --token-env TEAM_VAULT_TOKEN
  vaultgraph shim --url https://vault.example.com/mcp --login`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if target == "" {
				return usagef(cmd, "--url is required")
			}
			u, err := url.Parse(target)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return usagef(cmd, "--url %q is not an http or https URL, want e.g. http://127.0.0.1:8080/mcp", target)
			}
			if cmd.Flags().Changed("token-env") && os.Getenv(tokenEnv) == "" {
				return usagef(cmd, "--token-env %s: the variable %s is not set", tokenEnv, tokenEnv)
			}
			_, logger, err := loadConfig(cmd, s, false)
			if err != nil {
				return err
			}
			signIn := oauthclient.New(oauthclient.Options{ServerURL: target, ClientID: clientID,
				CacheDir: filepath.Join(filepath.Dir(config.UserFile()), "oauth"), Prompt: s.err, Logger: logger})
			switch {
			case login && logout:
				return usagef(cmd, "--login and --logout exclude each other")
			case login:
				if err := signIn.Login(cmd.Context()); err != nil {
					return err
				}
				fmt.Fprintf(s.err, "vaultgraph: signed in to %s\n", target)
				return nil
			case logout:
				if err := signIn.Logout(); err != nil {
					return err
				}
				fmt.Fprintf(s.err, "vaultgraph: signed out of %s\n", target)
				return nil
			}
			token := os.Getenv(tokenEnv)
			if _, err := signIn.Token(cmd.Context()); token == "" && err == nil {
				return server.RunShimSignedIn(cmd.Context(), target, "", signIn, s.in, s.out, logger)
			}
			if token == "" {
				// Not an error: a server on loopback may run without
				// tokens. But a missing token is the usual cause of a
				// shim that gets nothing but 401s, so say it at start.
				logger.Warn("shim: no bearer token: the environment variable "+tokenEnv+" is not set, so requests carry none; a server with http.tokens refuses them (401)", "env", tokenEnv)
			}
			return server.RunShimSignedIn(cmd.Context(), target, token, signIn, s.in, s.out, logger)
		},
	}
	cmd.Flags().StringVar(&target, "url", "", "URL of the vaultgraph streamable HTTP endpoint (required)")
	cmd.Flags().StringVar(&tokenEnv, "token-env", defaultTokenEnv, "environment variable that holds the bearer token")
	cmd.Flags().StringVar(&clientID, "client-id", "vaultgraph", "OAuth client ID of the shim at the server's authorization server")
	cmd.Flags().BoolVar(&login, "login", false, "sign in to an OAuth server now (opens the browser), cache the tokens, and exit")
	cmd.Flags().BoolVar(&logout, "logout", false, "forget the cached OAuth tokens of --url and exit")
	return cmd
}

// Package clientconfig writes vaultgraph's entry into the configuration
// file of an MCP client (Claude Desktop, Claude Code, Cursor): at the
// client's own path for the OS, changing only the entry's lines of a JSON or
// JSONC file (comments, trailing commas and the rest of its bytes are kept),
// with a backup of the file it replaces, or as a diff without writing
// anything. A file that does not parse is refused whole: nothing is written.
package clientconfig

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Client is an MCP client whose configuration file setup can write. Every
// supported client keeps its stdio servers under "mcpServers", keyed by
// name, each an object with "command" and "args".
type Client struct {
	// Name is the CLI's name for it: claude-desktop, claude-code, cursor.
	Name string
	// Title is how people call it.
	Title string
	// Scope says which file path picks, for help and messages.
	Scope string
	// ProjectScoped clients keep the file in a project folder.
	ProjectScoped bool
	// path returns the file for env (see Path).
	path func(env Env) (string, error)
	// extra are fields a new entry gets besides command and args.
	extra [][2]string
	// Next says what the user does for the client to see the change.
	Next string
}

// Env is what a client's path depends on, so that every OS's path can be
// computed (and tested) on any OS.
type Env struct {
	GOOS string // runtime.GOOS
	// Home is the user's home folder (os.UserHomeDir).
	Home string
	// Getenv reads an environment variable (APPDATA, XDG_CONFIG_HOME).
	Getenv func(string) string
	// Project is the project folder of project-scoped clients; for Cursor
	// "" means its global file.
	Project string
}

// Clients are the supported clients, in the order help lists them.
var Clients = []Client{
	{
		Name:  "claude-desktop",
		Title: "Claude Desktop",
		Scope: "the app's configuration file",
		path: func(env Env) (string, error) {
			dir, err := userConfigDir(env)
			if err != nil {
				return "", err
			}
			return filepath.Join(dir, "Claude", "claude_desktop_config.json"), nil
		},
		Next: "quit and reopen Claude Desktop (closing its window is not enough)",
	},
	{
		Name:          "claude-code",
		Title:         "Claude Code",
		Scope:         "the project's .mcp.json (project scope, shared through the repository)",
		ProjectScoped: true,
		path: func(env Env) (string, error) {
			if env.Project == "" {
				return "", errors.New("claude-code: no project folder")
			}
			return filepath.Join(env.Project, ".mcp.json"), nil
		},
		extra: [][2]string{{"type", "stdio"}},
		Next:  "start claude in the project folder and approve the server when it asks",
	},
	{
		Name:  "cursor",
		Title: "Cursor",
		Scope: "~/.cursor/mcp.json (every project), or with --project the project's .cursor/mcp.json",
		path: func(env Env) (string, error) {
			if env.Project != "" {
				return filepath.Join(env.Project, ".cursor", "mcp.json"), nil
			}
			if env.Home == "" {
				return "", errors.New("cursor: the home folder is unknown")
			}
			return filepath.Join(env.Home, ".cursor", "mcp.json"), nil
		},
		Next: "open Cursor's settings, Tools & MCP, and check that vaultgraph is listed and on",
	},
}

// Lookup finds a client by name.
func Lookup(name string) (Client, bool) {
	for _, c := range Clients {
		if c.Name == name {
			return c, true
		}
	}
	return Client{}, false
}

// Names lists the clients' names.
func Names() []string {
	var out []string
	for _, c := range Clients {
		out = append(out, c.Name)
	}
	return out
}

// Path is the client's configuration file in env.
func (c Client) Path(env Env) (string, error) { return c.path(env) }

// userConfigDir is os.UserConfigDir for env.GOOS: ~/Library/Application
// Support on macOS, %APPDATA% on Windows, $XDG_CONFIG_HOME or ~/.config
// elsewhere. Claude Desktop keeps its folder there.
func userConfigDir(env Env) (string, error) {
	get := env.Getenv
	if get == nil {
		get = func(string) string { return "" }
	}
	switch env.GOOS {
	case "windows":
		if d := get("APPDATA"); d != "" {
			return d, nil
		}
		return "", errors.New("%APPDATA% is not set")
	case "darwin", "ios":
		if env.Home == "" {
			return "", errors.New("the home folder is unknown")
		}
		return filepath.Join(env.Home, "Library", "Application Support"), nil
	default:
		if d := get("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
			return d, nil
		}
		if env.Home == "" {
			return "", errors.New("neither $XDG_CONFIG_HOME nor the home folder is known")
		}
		return filepath.Join(env.Home, ".config"), nil
	}
}

// Describe is a line per client for help: name, title and scope.
func Describe() string {
	var b strings.Builder
	for _, c := range Clients {
		fmt.Fprintf(&b, "  %-15s %s: %s\n", c.Name, c.Title, c.Scope)
	}
	return b.String()
}

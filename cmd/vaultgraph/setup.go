package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vaultgraph/vaultgraph/clientconfig"
	"github.com/vaultgraph/vaultgraph/config"
)

func newSetupCommand(s streams) *cobra.Command {
	var name, project, clientFile, command, scope string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "setup [CLIENT]",
		Short: "Add vaultgraph to an MCP client's configuration file",
		Long: `setup writes the entry that starts "vaultgraph serve" for the vault into an MCP
client's configuration file, at the path that client reads on this OS:

` + clientconfig.Describe() + `
Without CLIENT it lists the clients and their files on this machine.

The entry runs this vaultgraph binary (--command to name another) with
"serve --vault VAULT"; VAULT is --vault, else the configured vault. A config
file found in the current folder or named by --config is passed as --config,
since the client starts the server elsewhere; the user config file (vaultgraph
init) is read by the server anyway. Other global flags given to setup
(--toolsets, --read-only, --store, ...) are passed on. No secret is ever
written: the server reads those from its environment or config file.

The file may be JSON or JSONC (comments, trailing commas, as Cursor and VS Code
allow). Only the entry's lines change: every other server and setting keeps its
bytes, order, comments and indentation, and a new entry is indented like its
neighbours; an existing entry of the same --name keeps its other fields (its
env, say) and gets the new command and args. Running setup again with the same
options leaves the file as it is. The file as it was is copied beside it first
(FILE.vaultgraph-backup-YYYYMMDD-HHMMSS), then replaced in one rename.
--dry-run prints the change as a diff and writes nothing. A file that does not
parse is refused with the line and column, and nothing is written.`,
		Example: `  vaultgraph setup                                          # the clients and their files here
  vaultgraph setup claude-desktop --vault ~/notes --dry-run # show the change
  vaultgraph setup claude-desktop --vault ~/notes
  vaultgraph setup claude-code --project ~/src/app --vault ~/notes
  vaultgraph setup claude-code --scope user --vault ~/notes  # every project (~/.claude.json)
  vaultgraph setup cursor --vault ~/notes --read-only`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := clientEnv(project)
			if len(args) == 0 {
				return listClients(s, env)
			}
			client, ok := clientconfig.Lookup(args[0])
			if !ok {
				return usagef(cmd, "unknown client %q, want one of %s", args[0], strings.Join(clientconfig.Names(), ", "))
			}
			switch scope {
			case "", scopeProject:
			case scopeUser:
				if client.Name != "claude-code" {
					return usagef(cmd, "--scope is for claude-code; %s has one file per user already", client.Name)
				}
			default:
				return usagef(cmd, "--scope %q is not one of %s, %s", scope, scopeProject, scopeUser)
			}
			userScope := scope == scopeUser
			if client.ProjectScoped && env.Project == "" && !userScope {
				wd, err := os.Getwd()
				if err != nil {
					return err
				}
				env.Project = wd
			}
			path := clientFile
			if path == "" && userScope {
				if env.Home == "" {
					return usagef(cmd, "cannot find the home folder for Claude Code's user configuration: pass --client-config PATH")
				}
				path = claudeCodeUserFile(env.Home)
			} else if path == "" {
				var err error
				if path, err = client.Path(env); err != nil {
					return usagef(cmd, "cannot find %s's configuration file (%v): pass --client-config PATH", client.Title, err)
				}
			} else if path, _ = config.AbsPath(path); path == "" {
				return usagef(cmd, "--client-config %q cannot be made absolute", clientFile)
			}
			server, err := setupServer(cmd, command)
			if err != nil {
				return err
			}
			plan, err := clientconfig.PlanServer(client, path, name, server)
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			return reportSetup(s, client, plan, dryRun)
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "vaultgraph", "the entry's name in the client's configuration")
	f.StringVar(&project, "project", "", "project folder, for claude-code (default: the current folder) and cursor (default: its global file)")
	f.StringVar(&clientFile, "client-config", "", "the client's configuration file, when it is not at its usual place")
	f.StringVar(&command, "command", "", "the vaultgraph binary the client runs (default: this one)")
	f.BoolVar(&dryRun, "dry-run", false, "print the change as a diff; write nothing")
	f.StringVar(&scope, "scope", scopeProject, "for claude-code: project (the project's .mcp.json) or user (~/.claude.json, every project of this user)")
	return cmd
}

// Claude Code's scopes: a project's .mcp.json, or the user's ~/.claude.json
// (its top-level mcpServers, what `claude mcp add --scope user` writes).
const (
	scopeProject = "project"
	scopeUser    = "user"
)

// claudeCodeUserFile is Claude Code's user configuration file.
func claudeCodeUserFile(home string) string { return filepath.Join(home, ".claude.json") }

// clientEnv is this machine's environment for client paths.
func clientEnv(project string) clientconfig.Env {
	home, _ := os.UserHomeDir()
	env := clientconfig.Env{GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv}
	if project != "" {
		if abs, err := config.AbsPath(project); err == nil {
			env.Project = abs
		}
	}
	return env
}

// listClients prints each client with its file here and whether it exists.
func listClients(s streams, env clientconfig.Env) error {
	wd, _ := os.Getwd()
	for _, c := range clientconfig.Clients {
		cenv := env
		if c.ProjectScoped && cenv.Project == "" {
			cenv.Project = wd
		}
		path, err := c.Path(cenv)
		state := ""
		switch {
		case err != nil:
			path, state = "(unknown)", err.Error()
		case fileExists(path):
			state = "exists"
		default:
			state = "not there yet"
		}
		if _, err := fmt.Fprintf(s.out, "%-15s %s (%s)\n", c.Name, path, state); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(s.out, "next: vaultgraph setup CLIENT --vault DIR [--dry-run]")
	return err
}

// setupServer is the command line the client will run: this binary (or
// --command) with serve, the vault, the config file when the server would
// not find it by itself, and the other global flags given to setup.
func setupServer(cmd *cobra.Command, command string) (clientconfig.Server, error) {
	var srv clientconfig.Server
	cfg, err := config.Load(config.LoadOptions{Flags: cmd.Flags()})
	if err != nil {
		return srv, err
	}
	if command == "" {
		exe, err := os.Executable()
		if err != nil {
			return srv, usagef(cmd, "cannot tell where this binary is (%v): pass --command PATH", err)
		}
		if strings.Contains(exe, string(filepath.Separator)+"go-build") {
			return srv, usagef(cmd, "this vaultgraph runs from a temporary build folder (%s), which a client cannot start later: install it (go install, make build, a release archive) and run setup from there, or pass --command PATH", exe)
		}
		command = exe
	} else if command, err = config.AbsPath(command); err != nil {
		return srv, usagef(cmd, "--command: %v", err)
	}
	if cfg.Vault == "" && cfg.File == "" {
		return srv, &config.Error{Problems: []config.Problem{{Key: "vault", Message: "not set: pass --vault DIR (or write a config file with vaultgraph init DIR)"}}}
	}
	args := []string{"serve"}
	if cfg.File != "" && cfg.File != config.UserFile() {
		args = append(args, "--config", cfg.File)
	}
	if cfg.Vault != "" {
		args = append(args, "--vault", cfg.Vault)
	}
	var passErr error
	global := cmd.Root().PersistentFlags()
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if global.Lookup(f.Name) == nil {
			return // setup's own flags
		}
		switch f.Name {
		case config.FlagConfig, "vault":
			return // written above, absolute
		case "state-dir":
			abs, err := config.AbsPath(f.Value.String())
			if err != nil {
				passErr = err
			}
			args = append(args, "--"+f.Name+"="+abs)
		default:
			value := f.Value.String()
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				value = strings.Join(sv.GetSlice(), ",")
			}
			args = append(args, "--"+f.Name+"="+value)
		}
	})
	if passErr != nil {
		return srv, passErr
	}
	return clientconfig.Server{Command: command, Args: args}, nil
}

// reportSetup prints the plan as a diff (dry run) or applies it and says
// what was written, where the backup is and what to do next.
func reportSetup(s streams, client clientconfig.Client, plan clientconfig.Plan, dryRun bool) error {
	verb := map[string]string{"add": "add", "update": "update"}[plan.Action]
	if plan.Action == "unchanged" {
		_, err := fmt.Fprintf(s.out, "%s already has the server %q as it would be written; nothing to do\n", plan.Path, plan.Name)
		return err
	}
	if dryRun {
		_, err := fmt.Fprintf(s.out, "would %s the server %q in %s (dry run: nothing written)\n%s", verb, plan.Name, plan.Path, plan.Diff())
		return err
	}
	backup, err := clientconfig.Apply(plan, time.Now())
	if err != nil {
		var ie *clientconfig.InvalidFileError
		if errors.As(err, &ie) {
			return err
		}
		return fmt.Errorf("setup: %w", err)
	}
	msg := fmt.Sprintf("%sed the server %q in %s\n", strings.TrimSuffix(verb, "e"), plan.Name, plan.Path)
	if backup != "" {
		msg += "the file as it was: " + backup + "\n"
	}
	if plan.JSONC && client.Name == "claude-desktop" {
		msg += "note: the file has comments or trailing commas, which Claude Desktop may refuse to read\n"
	}
	msg += "next: " + client.Next + "\n"
	_, err = fmt.Fprint(s.out, msg)
	return err
}

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
)

// defaultConfigName is the per-folder file Load looks for first.
const defaultConfigName = "vaultgraph.yaml"

func newInitCommand(s streams) *cobra.Command {
	var output string
	var force bool
	cmd := &cobra.Command{
		Use:   "init [VAULT]",
		Short: "Write a commented config file for a vault (~/.config/vaultgraph/config.yaml)",
		Long: `init writes a configuration file that sets the vault and explains every other
key (its default, environment variable and flag), commented out, ready to edit.

VAULT is the vault folder (default: --vault, else the current directory); it
must exist and be a directory, and is written as an absolute path. The file
goes to the user config file, $XDG_CONFIG_HOME/vaultgraph/config.yaml (else
~/.config/vaultgraph/config.yaml, on every OS): every vaultgraph command reads
it from any folder, including a server that a desktop client starts. A
vaultgraph.yaml in the folder a command runs from takes precedence over it;
--output ./vaultgraph.yaml writes one for this folder only. init says where it
wrote, and refuses to replace an existing file unless --force.
The file is created readable by you alone (mode 0600), as it may come to hold
secrets. Other global flags are not written to the file.`,
		Example: `  vaultgraph init ~/notes                        # ~/.config/vaultgraph/config.yaml
  vaultgraph init ~/notes --output ./vaultgraph.yaml   # for this folder only
  vaultgraph init . --force`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			vault := "."
			if f := cmd.Flags().Lookup("vault"); f != nil && f.Changed {
				vault = f.Value.String()
			}
			if len(args) == 1 {
				vault = args[0]
			}
			abs, err := config.AbsPath(vault)
			if err != nil {
				return &config.Error{Problems: []config.Problem{{Key: "vault", Message: fmt.Sprintf("%q: %v", vault, err)}}}
			}
			if p, ok := config.CheckDir("vault", abs, "the vault folder"); !ok {
				return &config.Error{Problems: []config.Problem{p}}
			}
			if output == "" {
				if output = config.UserFile(); output == "" {
					return usagef(cmd, "the home folder is unknown: pass --output PATH")
				}
			}
			target, err := config.AbsPath(output)
			if err != nil {
				return usagef(cmd, "--output %q: %v", output, err)
			}
			if err := writeConfigFile(target, config.Template(abs), force); err != nil {
				return err
			}
			msg := fmt.Sprintf("wrote %s for the vault %s\n", target, abs)
			if target == config.UserFile() {
				msg += "every vaultgraph command reads it, from any folder (a desktop client's server too)\n"
				if local, err := config.AbsPath(defaultConfigName); err == nil && fileExists(local) {
					msg += "note: " + local + " takes precedence when vaultgraph runs from this folder\n"
				}
			}
			msg += "next: vaultgraph status, then vaultgraph serve (or vaultgraph setup claude-desktop)\n"
			_, err = fmt.Fprint(s.out, msg)
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "file to write (default: the user config file, "+displayUserFile()+")")
	cmd.Flags().BoolVar(&force, "force", false, "replace the file if it exists")
	return cmd
}

// displayUserFile is the user config file as help text shows it.
func displayUserFile() string {
	if os.Getenv("XDG_CONFIG_HOME") != "" {
		return "$XDG_CONFIG_HOME/vaultgraph/config.yaml"
	}
	return "~/.config/vaultgraph/config.yaml"
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// writeConfigFile writes data to path with mode 0600. Without force it
// creates the file exclusively, so an existing file is never touched; with
// force it replaces it atomically (temporary file, then rename).
func writeConfigFile(path string, data []byte, force bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if !force {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("init: %s exists; pass --force to replace it", path)
		}
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		if _, err := f.Write(data); err != nil {
			_ = f.Close()
			_ = os.Remove(path) // we created it: leave no half-written file
			return fmt.Errorf("init: write %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			_ = os.Remove(path)
			return fmt.Errorf("init: write %s: %w", path, err)
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this is a no-op
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	return nil
}

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

// defaultConfigName is the file init writes and Load looks for first.
const defaultConfigName = "vaultgraph.yaml"

func newInitCommand(s streams) *cobra.Command {
	var output string
	var force bool
	cmd := &cobra.Command{
		Use:   "init [VAULT]",
		Short: "Write a commented vaultgraph.yaml for a vault",
		Long: `init writes a configuration file that sets the vault and explains every other
key (its default, environment variable and flag), commented out, ready to edit.

VAULT is the vault folder (default: --vault, else the current directory); it
must exist and be a directory, and is written as an absolute path. The file
goes to ./vaultgraph.yaml, where every command finds it when run from this
folder, or to --output PATH (use ~/.config/vaultgraph/config.yaml for a
per-user default). init refuses to replace an existing file unless --force.
The file is created readable by you alone (mode 0600), as it may come to hold
secrets. Other global flags are not written to the file.`,
		Example: `  vaultgraph init ~/notes
  vaultgraph init ~/notes --output ~/.config/vaultgraph/config.yaml
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
			target, err := config.AbsPath(output)
			if err != nil {
				return usagef(cmd, "--output %q: %v", output, err)
			}
			if err := writeConfigFile(target, config.Template(abs), force); err != nil {
				return err
			}
			_, err = fmt.Fprintf(s.out, "wrote %s for the vault %s\nnext: vaultgraph status, then vaultgraph serve\n", target, abs)
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", defaultConfigName, "file to write")
	cmd.Flags().BoolVar(&force, "force", false, "replace the file if it exists")
	return cmd
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

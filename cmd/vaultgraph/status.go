package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/vaultgraph/vaultgraph/config"
	"gopkg.in/yaml.v3"
)

// Output formats of status.
const (
	formatTable = "table"
	formatYAML  = "yaml"
)

func newStatusCommand(s streams) *cobra.Command {
	var format string
	var configOnly bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the effective configuration and where each setting came from",
		Long: `status loads the configuration exactly as serve would (defaults, file,
environment, flags), validates it, and prints every setting with its source to
stdout. Secrets are shown as [redacted] when set and empty when not. An invalid
configuration is reported like any other command's, with exit status 2.

--format table (the default) shows KEY, VALUE and SOURCE columns; --format yaml
prints the settings as YAML, with non-default sources as comments.

After the settings, status looks at the configured store (unless --config-only):
for Neo4j the server version and edition, the note count, the applied schema
migrations applied and pending (status only looks: it never applies them;
'vaultgraph migrate' or the first serve or sync does) and every index with its
state (vector indexes with their dimensions); for the embedded store its
folder. A store that cannot be reached is reported on that line and makes the
exit status 1.

The vault need not be set.`,
		Example: `  vaultgraph status
  VAULTGRAPH_STORE=neo4j vaultgraph status --format yaml`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != formatTable && format != formatYAML {
				return usagef(cmd, "--format %q is not one of %s, %s", format, formatTable, formatYAML)
			}
			cfg, logger, err := loadConfig(cmd, s, false)
			if err != nil {
				return err
			}
			if format == formatYAML {
				// YAML stays a configuration document, loadable as a file.
				return writeStatusYAML(s.out, cfg)
			}
			if err := writeStatusTable(s.out, cfg); err != nil {
				return err
			}
			if !configOnly {
				return writeStoreStatus(cmd.Context(), s.out, cfg, logger)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", formatTable, "output format: table or yaml")
	cmd.Flags().BoolVar(&configOnly, "config-only", false, "show the settings only, do not look at the store")
	return cmd
}

// configFileLine says which config file was read, or where one was sought.
func configFileLine(cfg *config.Config) string {
	if cfg.File != "" {
		return "config file: " + cfg.File
	}
	return "config file: none (looked for " + strings.Join(config.SearchPath(), ", ") + ")"
}

func writeStatusTable(w io.Writer, cfg *config.Config) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\n\nKEY\tVALUE\tSOURCE\n", configFileLine(cfg))
	for _, st := range cfg.Settings() {
		v := config.FormatValue(st.Value)
		if v == "" {
			v = `""`
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", st.Key, v, st.Origin)
	}
	return tw.Flush()
}

// writeStatusYAML prints the settings as a YAML document shaped like the
// config file, each non-default source as a line comment.
func writeStatusYAML(w io.Writer, cfg *config.Config) error {
	root := &yaml.Node{Kind: yaml.MappingNode, HeadComment: configFileLine(cfg)}
	groups := map[string]*yaml.Node{}
	for _, st := range cfg.Settings() {
		parent, leaf, nested := strings.Cut(st.Key, ".")
		m := root
		if nested {
			g, ok := groups[parent]
			if !ok {
				g = &yaml.Node{Kind: yaml.MappingNode}
				groups[parent] = g
				root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: parent}, g)
			}
			m = g
		} else {
			leaf = st.Key
		}
		var v yaml.Node
		if err := v.Encode(st.Value); err != nil {
			return fmt.Errorf("status: encode %s: %w", st.Key, err)
		}
		if v.Kind == yaml.SequenceNode || v.Kind == yaml.MappingNode {
			v.Style = yaml.FlowStyle // one line each, so the source comment sits beside it
		}
		if st.Origin != "default" {
			v.LineComment = "from " + st.Origin
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: leaf}, &v)
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("status: %w", err)
	}
	return enc.Close()
}

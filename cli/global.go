package cli

// The CLI's global behaviour (issue 16): quiet ordinary commands (-v for logs), each
// command's help showing its own flags (the server settings only on serve, worker and the
// root), a group command without a subcommand failing with its help, and flag mistakes said
// as sentences.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// logsByDefault are the commands that log at the configured level without -v: the long
// running ones, whose log is their output.
func logsByDefault(cmd *cobra.Command) bool {
	return !cmd.HasParent() || cmd.Name() == "serve" || cmd.Name() == "worker"
}

// generalFlags are the root's persistent flags every command's help lists; the others
// (listening, fetching, processing, mail…) belong to serve and worker.
var generalFlags = map[string]bool{"config": true, "data-dir": true, "database": true, "db-busy-timeout": true,
	"verbose": true, "log-level": true, "log-format": true, "help": true}

// setupGlobal wires the behaviours above into the command tree under root.
func setupGlobal(root *cobra.Command) {
	root.SetUsageFunc(usage)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c, err) })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(cmd *cobra.Command, args []string) error {
				// Called alone (or with an unknown subcommand): the help, on stderr, and a
				// failure, so that a script does not take it for done.
				cmd.SetOut(cmd.ErrOrStderr())
				_ = cmd.Help()
				if len(args) > 0 {
					return fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
				}
				return fmt.Errorf("%s needs a command: one of %s", cmd.CommandPath(), strings.Join(subcommandNames(cmd), ", "))
			}
		} else if check := c.Args; check != nil {
			// cobra's "accepts 1 arg(s), received 0" does not say which: the usage line does.
			c.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return fmt.Errorf("%w; usage: %s (see %s --help)", err, strings.TrimSuffix(cmd.UseLine(), " [flags]"), cmd.CommandPath())
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// usage writes a command's usage as cobra's default does (its defaultUsageFunc; command groups,
// which this CLI does not use, left out), with the global flags of globalFlags. It is a function,
// not cobra's usage template changed: executing any text/template makes reflect's MethodByName
// reachable, and with it the linker keeps every exported method of the program, used or not
// (about 3 MB of the binary; BENCHMARKS.md, session 22).
func usage(c *cobra.Command) error {
	c.InheritedFlags() // merges the parents' persistent flags, as cobra does before its own usage
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		fmt.Fprintf(&b, "\n  %s", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n  %s [command]", c.CommandPath())
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(&b, "\n\nAliases:\n  %s", c.NameAndAliases())
	}
	if c.HasExample() {
		fmt.Fprintf(&b, "\n\nExamples:\n%s", c.Example)
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(&b, "\n\nFlags:\n%s", strings.TrimRightFunc(c.LocalFlags().FlagUsages(), unicode.IsSpace))
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprintf(&b, "\n\nGlobal Flags:\n%s", strings.TrimRightFunc(globalFlags(c), unicode.IsSpace))
	}
	if c.HasHelpSubCommands() {
		b.WriteString("\n\nAdditional help topics:")
		for _, sub := range c.Commands() {
			if sub.IsAdditionalHelpTopicCommand() {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.CommandPathPadding(), sub.CommandPath(), sub.Short)
			}
		}
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	b.WriteString("\n")
	_, err := io.WriteString(c.OutOrStderr(), b.String())
	if err != nil {
		c.PrintErrln(err)
	}
	return err
}

// globalFlags are the inherited flags c's help lists: all of them for the long-running commands
// (logsByDefault), the general ones (generalFlags) and a pointer to the server's for the others.
func globalFlags(c *cobra.Command) string {
	if logsByDefault(c) {
		return c.InheritedFlags().FlagUsages()
	}
	fs := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if generalFlags[f.Name] {
			fs.AddFlag(f)
		}
	})
	return fs.FlagUsages() + "\nThe server's settings (address, fetching, processing, mail…): morningdeck serve --help\n"
}

func subcommandNames(c *cobra.Command) []string {
	var out []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			out = append(out, s.Name())
		}
	}
	return out
}

// flagError turns pflag's messages ("invalid argument "abc" for "--interval" flag:
// strconv.ParseInt: parsing "abc": invalid syntax") into a sentence saying what to give.
func flagError(c *cobra.Command, err error) error {
	var inv *pflag.InvalidValueError
	if errors.As(err, &inv) {
		return valueError("--"+inv.GetFlag().Name, inv.GetFlag(), inv.GetValue())
	}
	return fmt.Errorf("%w (see %s --help)", err, c.CommandPath())
}

// valueError says that value is not right for flag f, named where as the person wrote it
// (--interval, MORNINGDECK_FETCH_WORKERS, a file's line).
func valueError(where string, f *pflag.Flag, value string) error {
	return fmt.Errorf("invalid value %q for %s: %s", value, where, expected(f))
}

// expected says what a flag takes, from its type and usage text.
func expected(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		for _, unit := range []string{"minutes", "days", "seconds", "bytes"} {
			if strings.Contains(f.Usage, unit) {
				return "give a whole number of " + unit
			}
		}
		return "give a whole number"
	case "float32", "float64":
		return "give a number, such as 0.5"
	case "duration":
		return "give a duration, such as 30s, 5m or 2h"
	case "bool":
		return "give true or false"
	}
	return "see --help"
}

// printJSON writes v as indented JSON: what every list prints with --json.
func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// hoistFlags moves a command's flags that follow its positional arguments
// in front of them, because urfave/cli stops reading flags at the first
// positional: `clapper run demo.yaml -o out` then works like
// `clapper run -o out demo.yaml`. Everything after "--" is left alone. A
// flag that takes a value and ends the line is a usage error: moved in
// front, it would take a positional as its value. Pure in its inputs.
func hoistFlags(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	// Global flags come before the command name.
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		i++
	}
	if i >= len(args) {
		return args, nil
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return args, nil
	}
	// Descend into subcommands (bench capture): their flags are the ones
	// to hoist, in front of their own positionals.
	for i+1 < len(args) {
		sub := cmd.Command(args[i+1])
		if sub == nil {
			break
		}
		cmd, i = sub, i+1
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, pos []string
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			pos = append(pos, rest[j:]...)
			break
		}
		if len(a) > 1 && strings.HasPrefix(a, "-") {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if k := strings.IndexByte(name, '='); k >= 0 {
				continue
			}
			if takesValue[name] {
				if j+1 >= len(rest) {
					return nil, usageErr("flag %s needs a value", a)
				}
				flags = append(flags, rest[j+1])
				j++
			}
			continue
		}
		pos = append(pos, a)
	}
	out := append([]string{}, args[:i+1]...)
	out = append(out, flags...)
	return append(out, pos...), nil
}

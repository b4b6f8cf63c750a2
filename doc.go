// Package clapper is the root of the clapper module: a tool that turns a
// declarative YAML run script into browser footage people can trust. The
// code lives in its packages (cmd/clapper, scripts, session, recorder,
// timeline, compositor, samples); this package holds only module-wide tests.
package clapper

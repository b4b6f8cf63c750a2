// Package samples holds clapper's example run scripts and the small sites
// they run against, embedded so tests and documentation examples can use
// them from any working folder.
package samples

import "embed"

// FS holds every sample script and site.
//
//go:embed *.yaml site
var FS embed.FS

// Package bundle packs a take folder into one .clap file (a tar stream
// compressed with zstd, entries relative to the take's root, its manifest
// first) and unpacks one safely: a bundle is hostile input, so unpacking
// refuses anything but plain files and folders inside the take, bounds the
// total size, file count and compression ratio, checks every file against
// the manifest, and writes into a temporary folder renamed into place, so
// a bad bundle leaves nothing behind.
package bundle

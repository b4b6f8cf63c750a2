// Package plainfile opens the files clapper reads from a take or a script:
// each is checked to be a regular file of bounded size before a byte of it
// is read, so that a pipe, a device or a huge file in a take (which is
// data from anyone) is refused at once, naming the limit, instead of
// hanging a command or filling its memory. It owns the limits; it does not
// know what the files mean.
package plainfile

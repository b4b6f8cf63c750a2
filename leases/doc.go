// Package leases decides who may drive which tab of a browser many runs
// share, and keeps those decisions in files: one lease per tab in the state
// folder, created exclusively so two claims cannot both win, and an origin
// ledger of the tabs clapper opened. The rules (conflict, staleness,
// reaping, close on release, the idle sweep, tab selectors) are pure
// functions over plain data; the Store applies them to the files. It
// speaks no CDP: callers bring the browser's list of pages.
package leases

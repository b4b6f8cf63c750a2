// Package scripts owns clapper's YAML run-script language: it decodes a
// script into typed steps (durations, enums, targets), resolves variables and
// includes, masks secrets, and reports every error at once as file:line:col
// with the source line and a caret, before anything launches. It also
// publishes the language's JSON Schema.
//
// It does not touch a browser, and imports no other clapper package.
package scripts

package scripts

import (
	"regexp"
	"strconv"
	"strings"
)

// AttachShared, as browser.attach, runs against the browser host that
// "clapper browser start" keeps (its endpoint is in the state folder).
const AttachShared = "shared"

var tabIDRE = regexp.MustCompile(`^[0-9A-Fa-f]{32}$`)

// checkClaim accepts the tab selectors of browser.claim; the message says
// which there are.
func checkClaim(s string) string {
	kind, rest, has := strings.Cut(s, ":")
	switch {
	case s == "active", tabIDRE.MatchString(s):
		return ""
	case has && kind == "index":
		if n, err := strconv.Atoi(rest); err == nil && n >= 0 {
			return ""
		}
		return "index:N takes a number from 0, like index:1"
	case has && (kind == "url" || kind == "title") && rest != "":
		return ""
	}
	return "use active, index:N, url:<substring>, title:<substring> or a tab id (clapper leases lists the tabs), not " + strconv.Quote(s)
}

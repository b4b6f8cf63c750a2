package recorder

// RestartInPlace makes o's capture restart its screencast by stopping and
// starting it on the tab's own session, the path taken when no second
// session can be attached.
func RestartInPlace(o *Options) { o.inPlace = true }

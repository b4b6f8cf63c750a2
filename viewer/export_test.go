package viewer

// For the browser tests (package viewer_test): the diff report's two
// synthetic takes, and their viewport in CSS pixels.
var (
	DiffTakesForTest    = diffTakes
	DiffViewportForTest = [2]float64{diffW, diffH}
)

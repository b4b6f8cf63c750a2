package viewer_test

import (
	"testing"

	"github.com/clapper-dev/clapper/internal/testbrowser"
)

// The leak checks catch a Chromium or profile the browser tests leave;
// the package's browser, which they open their reports in (each in a tab
// of its own), is closed before them.
func TestMain(m *testing.M) { testbrowser.Main(m, chromium) }

var chromium = testbrowser.New(1280, 900)

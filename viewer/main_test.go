package viewer_test

import (
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

// The leak checks catch a Chromium or profile the browser test leaves.
func TestMain(m *testing.M) { testenv.Main(m) }

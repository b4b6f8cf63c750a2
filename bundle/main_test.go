package bundle

import (
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

// The leak checks catch a temporary folder an unpack leaves behind.
func TestMain(m *testing.M) { testenv.Main(m) }

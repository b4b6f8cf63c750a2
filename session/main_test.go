package session

import (
	"flag"
	"testing"

	"github.com/clapper-dev/clapper/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	flag.Parse()
	testenv.Main(m)
}

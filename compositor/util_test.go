package compositor

import (
	"fmt"
	"time"
)

func timeDur(ns int64) time.Duration { return time.Duration(ns) }

func fmtSscanf(s, f string, a ...any) (int, error) { return fmt.Sscanf(s, f, a...) }

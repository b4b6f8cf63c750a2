package compositor

import (
	"fmt"
	"image/color"
	"time"
)

func timeDur(ns int64) time.Duration { return time.Duration(ns) }

func fmtSscanf(s, f string, a ...any) (int, error) { return fmt.Sscanf(s, f, a...) }

type colorRGBA = color.RGBA

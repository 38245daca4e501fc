package toolarg

import (
	"encoding/json"
	"math"
)

// Number returns a[k] as a float64. ok is false when a[k] is absent, is
// not a number (a string "10" is not), or is not finite.
func Number(a map[string]any, k string) (f float64, ok bool) {
	switch v := a[k].(type) {
	case float64:
		f = v
	case float32:
		f = float64(v)
	case int:
		f = float64(v)
	case int32:
		f = float64(v)
	case int64:
		f = float64(v)
	case json.Number:
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// Int returns a[k] as a whole number, truncated towards zero, or 0 when
// Number finds none.
func Int(a map[string]any, k string) int {
	f, _ := Number(a, k)
	return int(f)
}

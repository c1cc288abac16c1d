package lint

import (
	"reflect"
	"unsafe"
)

// sizer estimates the bytes a value retains, counting each pointer target
// and each slice's backing array once: what Session.MemoryBytes reports.
type sizer struct {
	seen map[uintptr]bool
}

func (z *sizer) first(p uintptr) bool {
	if p == 0 {
		return false
	}
	if z.seen == nil {
		z.seen = map[uintptr]bool{}
	}
	if z.seen[p] {
		return false
	}
	z.seen[p] = true
	return true
}

// of returns the bytes v refers to, beyond v itself.
func (z *sizer) of(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || !z.first(v.Pointer()) {
			return 0
		}
		e := v.Elem()
		return int64(e.Type().Size()) + z.of(e)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer {
			return z.of(e)
		}
		return int64(e.Type().Size()) + z.of(e)
	case reflect.String:
		if v.Len() == 0 || !z.first(uintptr(unsafe.Pointer(unsafe.StringData(v.String())))) {
			return 0
		}
		return int64(v.Len())
	case reflect.Slice:
		if v.Cap() == 0 || !z.first(v.Pointer()) {
			return 0
		}
		et := v.Type().Elem()
		n := int64(v.Cap()) * int64(et.Size())
		if hasPointers(et) {
			for i := 0; i < v.Len(); i++ {
				n += z.of(v.Index(i))
			}
		}
		return n
	case reflect.Array:
		var n int64
		if hasPointers(v.Type().Elem()) {
			for i := 0; i < v.Len(); i++ {
				n += z.of(v.Index(i))
			}
		}
		return n
	case reflect.Map:
		if v.IsNil() || !z.first(v.Pointer()) {
			return 0
		}
		kt, et := v.Type().Key(), v.Type().Elem()
		// Entries plus about one control byte and a quarter of empty
		// slots each (swiss tables).
		n := int64(v.Len()) * (int64(kt.Size()+et.Size()) + 1) * 5 / 4
		if hasPointers(kt) || hasPointers(et) {
			it := v.MapRange()
			for it.Next() {
				n += z.of(it.Key()) + z.of(it.Value())
			}
		}
		return n
	case reflect.Struct:
		var n int64
		for i := 0; i < v.NumField(); i++ {
			n += z.of(v.Field(i))
		}
		return n
	}
	return 0 // numbers, bools, funcs, channels: their size is their holder's
}

// hasPointers reports whether values of t may refer to other memory.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.String, reflect.Slice, reflect.Map:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

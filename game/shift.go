package game

import (
	"reflect"
	"time"
)

// ShiftTimes moves every time.Time reachable from v (a pointer) by d: struct fields,
// slices, arrays, maps and pointers are followed; zero times ("never") stay zero, and
// unexported fields are left alone. An offline world whose saved state holds wall-clock
// times (the universe: arrivals, cooldowns, deadlines) uses it to be restored as it
// stood at an earlier time: shifted by how long ago that was, a ship in transit then is
// still in transit now, for the time it had left.
func ShiftTimes(v any, d time.Duration) {
	shift(reflect.ValueOf(v), d, map[uintptr]bool{})
}

var timeType = reflect.TypeFor[time.Time]()

func shift(v reflect.Value, d time.Duration, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		shift(v.Elem(), d, seen)
	case reflect.Interface:
		if !v.IsNil() {
			// An interface's value cannot be set in place: shift a copy and put it back.
			e := v.Elem()
			if e.Kind() == reflect.Pointer {
				shift(e, d, seen)
			} else if v.CanSet() {
				c := reflect.New(e.Type()).Elem()
				c.Set(e)
				shift(c, d, seen)
				v.Set(c)
			}
		}
	case reflect.Struct:
		if v.Type() == timeType {
			if t := v.Interface().(time.Time); !t.IsZero() && v.CanSet() {
				v.Set(reflect.ValueOf(t.Add(d)))
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				shift(v.Field(i), d, seen)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			shift(v.Index(i), d, seen)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			// Map values cannot be set in place: shift a copy and store it again.
			val := iter.Value()
			c := reflect.New(val.Type()).Elem()
			c.Set(val)
			shift(c, d, seen)
			v.SetMapIndex(iter.Key(), c)
		}
	}
}

package driver

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

var (
	registryMu sync.RWMutex
	registry   = map[string]Transport{}
)

// Register makes t available under t.Name(). It is meant to be called from
// an init function and panics when the name is empty or taken, or when
// t's Capabilities are inconsistent or claim a URL scheme another
// registered transport has.
func Register(t Transport) {
	registryMu.Lock()
	defer registryMu.Unlock()
	name := t.Name()
	if name == "" {
		panic("driver: Register with an empty transport name")
	}
	if _, dup := registry[name]; dup {
		panic("driver: transport " + name + " registered twice")
	}
	if err := t.Capabilities().check(name); err != nil {
		panic("driver: " + err.Error())
	}
	for _, s := range SchemesOf(t) {
		for _, o := range registry {
			if slices.Contains(SchemesOf(o), s) {
				panic(fmt.Sprintf("driver: transport %s declares URL scheme %s, which transport %s has", name, s, o.Name()))
			}
		}
	}
	registry[name] = t
}

// Lookup returns the transport registered under name.
func Lookup(name string) (Transport, error) {
	registryMu.RLock()
	t, ok := registry[name]
	registryMu.RUnlock()
	if ok {
		return t, nil
	}
	return nil, fmt.Errorf("transport %q is not available (available: %s)", name, strings.Join(Names(), ", "))
}

// Names returns the registered transport names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return slices.Sorted(maps.Keys(registry))
}

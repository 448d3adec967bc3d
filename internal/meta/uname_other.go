//go:build !linux

package meta

func unameRelease() string { return "unknown" }

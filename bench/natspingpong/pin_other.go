//go:build !linux

package main

import "errors"

func pinThread(int) error { return errors.New("pinning a thread needs Linux") }

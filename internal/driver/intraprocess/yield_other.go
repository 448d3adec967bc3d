//go:build !linux

package intraprocess

func osYield() {}

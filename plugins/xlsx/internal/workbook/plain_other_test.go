//go:build !amd64

package workbook

const runtimeHasBlocks = false

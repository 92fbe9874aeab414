//go:build !amd64

package workbook

// plainBlocks is the amd64 assembly's contract with nothing skipped:
// plainWords checks every byte itself.
func plainBlocks(string) int { return 0 }

// asciiBlocks likewise leaves every byte to RuneCount.
func asciiBlocks([]byte) int { return 0 }

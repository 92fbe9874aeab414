package workbook

// plainBlocks returns the index of the first byte of s that JSON escaping
// must look at (see plainLanes for which), or len(s) rounded down to a
// multiple of sixteen when none of s's whole sixteen-byte blocks holds
// one. It is SSE2 assembly: about three times plainWords' pace on the long
// plain text of the long-strings sheet, whose escape check was a tenth of
// read-sheet's CPU.
//
//go:noescape
func plainBlocks(s string) int

// asciiBlocks returns the index of the first byte of b at or above 0x80,
// or len(b) rounded down to a multiple of sixteen when none of b's whole
// sixteen-byte blocks holds one (SSE2 assembly; RuneCount's ASCII runs).
//
//go:noescape
func asciiBlocks(b []byte) int

package workbook

// runtimeHasBlocks: plainBlocks and asciiBlocks are the assembly, not the
// stubs that leave every byte to the caller.
const runtimeHasBlocks = true

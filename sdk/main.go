package sdk

// Main runs p: it serves go-plugin when the host started the binary, and
// otherwise runs as the command-line tool described by the tool.yaml beside
// the binary. It does not return.
func Main(p Plugin) {
	mainImpl(p)
}

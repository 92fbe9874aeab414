package tests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// stdout is the MCP protocol channel (docs/design.md, "The MCP server"), so writing to it is
// confined to the places that own a terminal. The rule this test enforces
// on every non-test Go file of the module (testdata/ and node_modules/
// excluded):
//
//   - Library code (any package not named main) never calls fmt.Print,
//     fmt.Printf, fmt.Println, print or println and never names os.Stdout.
//     Exceptions, each one function: stdoutAllowed below.
//   - The host command (host/, package main) runs `host serve`, so it never
//     calls fmt.Print*/print/println either, and names os.Stdout only in
//     func main, which hands it down as an io.Writer to the terminal
//     commands (serve replaces descriptor 1 before serving).
//   - Other main packages (plugins' and tools' commands) own their
//     terminal: they may print.
//
// Logs go to stderr through hclog; results go to the io.Writer a command
// was given.

// stdoutAllowed lists the library functions that may name os.Stdout, by
// file (slash-separated, from the module root) and function, with why.
var stdoutAllowed = map[string]string{
	"sdk/main_impl.go:mainImpl":                          "a plugin run without the go-plugin cookie is a CLI: its result goes to stdout",
	"host/internal/mcpproto/stdout_other.go:GuardStdout": "takes the real stdout for the protocol where fd 1 cannot be redirected",
	"host/internal/supervisor/hygiene_linux.go:Reap":     reaperPipes,
	"host/internal/supervisor/hygiene_darwin.go:Reap":    reaperPipes,
	"host/internal/supervisor/hygiene_windows.go:Reap":   reaperPipes,
}

// reaperPipes is why each platform's reaper may name os.Stdout.
const reaperPipes = "the reaper is its own process: it hands the pipes the host gave it (the plugin's handshake and log pipes, never the MCP stream) to the plugin it runs"

// stdoutViolation is one forbidden use.
type stdoutViolation struct {
	pos  token.Position
	what string
}

// checkStdout returns the forbidden uses in one parsed file; rel is its
// slash path from the module root.
func checkStdout(fset *token.FileSet, f *ast.File, rel string) []stdoutViolation {
	isMain := f.Name.Name == "main"
	isHost := strings.HasPrefix(rel, "host/") && isMain
	if isMain && !isHost {
		return nil
	}
	fmtName, osName := "", ""
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch path {
		case "fmt":
			fmtName = name
		case "os":
			osName = name
		}
	}
	var out []stdoutViolation
	for _, decl := range f.Decls {
		fn, _ := decl.(*ast.FuncDecl)
		funcName := ""
		if fn != nil {
			funcName = fn.Name.Name
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") && id.Obj == nil {
					out = append(out, stdoutViolation{fset.Position(n.Pos()), id.Name})
				}
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && fmtName != "" && x.Name == fmtName &&
						(sel.Sel.Name == "Print" || sel.Sel.Name == "Printf" || sel.Sel.Name == "Println") {
						out = append(out, stdoutViolation{fset.Position(n.Pos()), "fmt." + sel.Sel.Name})
					}
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && osName != "" && x.Name == osName && n.Sel.Name == "Stdout" {
					if isHost && funcName == "main" && fn.Recv == nil {
						return true
					}
					if _, ok := stdoutAllowed[rel+":"+funcName]; ok {
						return true
					}
					out = append(out, stdoutViolation{fset.Position(n.Pos()), "os.Stdout"})
				}
			}
			return true
		})
	}
	return out
}

func TestNoStrayStdoutInLibraryCode(t *testing.T) {
	fset := token.NewFileSet()
	var files int
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case path != repoRoot && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "bin"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Logf("skip %s: %v", path, err) // a file being written by someone else
			return nil
		}
		rel, _ := filepath.Rel(repoRoot, path)
		files++
		for _, v := range checkStdout(fset, f, filepath.ToSlash(rel)) {
			t.Errorf("%s: %s writes to stdout, the protocol channel: log to stderr through hclog, or write to the io.Writer you were given", v.pos, v.what)
		}
		return nil
	})
	must(t, err)
	if files == 0 {
		t.Fatal("no Go files scanned")
	}
}

func TestStdoutCheckerRules(t *testing.T) {
	tests := []struct {
		name, rel, src string
		want           []string
	}{
		{"library prints", "registry/x.go", `package registry
import "fmt"
func f() { fmt.Println("x"); fmt.Printf("%d", 1); fmt.Print(1) }`, []string{"fmt.Println", "fmt.Printf", "fmt.Print"}},
		{"library builtins", "manifests/x.go", `package manifests
func f() { println("x"); print(1) }`, []string{"println", "print"}},
		{"library names os.Stdout", "sdk/x.go", `package sdk
import ("fmt"; "os")
func f() { fmt.Fprintln(os.Stdout, "x") }`, []string{"os.Stdout"}},
		{"aliased imports", "sdk/x.go", `package sdk
import (f "fmt"; o "os")
func g() { f.Println(); _ = o.Stdout }`, []string{"fmt.Println", "os.Stdout"}},
		{"stderr and writers are fine", "registry/x.go", `package registry
import ("fmt"; "io"; "os")
func f(w io.Writer) { fmt.Fprintln(w, "x"); fmt.Fprintln(os.Stderr, "y"); _ = fmt.Sprintf("z") }`, nil},
		{"allowed library function", "sdk/main_impl.go", `package sdk
import "os"
func mainImpl() { _ = os.Stdout }`, nil},
		{"host main hands stdout down", "host/main.go", `package main
import "os"
func main() { run(os.Stdout) }`, nil},
		{"host command prints", "host/serve.go", `package main
import ("fmt"; "os")
func runServe() { fmt.Println("x"); _ = os.Stdout }`, []string{"fmt.Println", "os.Stdout"}},
		{"a plugin's command may print", "plugins/xlsx/main.go", `package main
import "fmt"
func main() { fmt.Println("x") }`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, tt.rel, tt.src, parser.SkipObjectResolution)
			must(t, err)
			var got []string
			for _, v := range checkStdout(fset, f, tt.rel) {
				got = append(got, v.what)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// Command go_oracle prints what go/types says each call in a Go tree resolves to
// (benchmarks/graph_accuracy_langs.py reads it).
//
// usage: go_oracle <tree>
//
// One JSON object a line: {file, line, col, name, decls: [{file, line, name, kind}]}; line is 1-based, col the
// 0-based byte column of the callee's name, a declaration outside the tree has file "". Calls are call
// expressions whose function is a name or a selector, and composite literals of a named type. Standard library
// only: packages of the tree's own modules are type-checked from source, the standard library through the
// "source" importer, anything else fails to import and its uses resolve to nothing.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type decl struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Name string `json:"name"`
	Kind string `json:"kind"`
}

type call struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Col   int    `json:"col"`
	Name  string `json:"name"`
	Decls []decl `json:"decls"`
}

type module struct{ path, dir string }

type oracle struct {
	tree    string
	fset    *token.FileSet
	modules []module
	std     types.Importer
	pkgs    map[string]*types.Package
	busy    map[string]bool
}

func (o *oracle) dirOf(importPath string) (string, bool) {
	for _, m := range o.modules {
		if importPath == m.path {
			return m.dir, true
		}
		if strings.HasPrefix(importPath, m.path+"/") {
			return filepath.Join(m.dir, filepath.FromSlash(importPath[len(m.path)+1:])), true
		}
	}
	return "", false
}

func (o *oracle) importPathOf(dir string) string {
	for _, m := range o.modules {
		rel, err := filepath.Rel(m.dir, dir)
		if err == nil && !strings.HasPrefix(rel, "..") {
			if rel == "." {
				return m.path
			}
			return m.path + "/" + filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(dir)
}

// Import type-checks a package of the tree from source, or asks the standard library importer.
func (o *oracle) Import(path string) (*types.Package, error) {
	if p, ok := o.pkgs[path]; ok {
		return p, nil
	}
	dir, inside := o.dirOf(path)
	if !inside {
		return o.std.Import(path)
	}
	if o.busy[path] {
		return nil, fmt.Errorf("import cycle through %s", path)
	}
	o.busy[path] = true
	defer delete(o.busy, path)
	lib, _, _ := o.parseDir(dir)
	pkg, _ := o.check(path, lib, nil)
	o.pkgs[path] = pkg
	return pkg, nil
}

// parseDir parses the files of one folder that build here: library, in-package test and external test files.
func (o *oracle) parseDir(dir string) (lib, inTest, xTest []*ast.File) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	ctx := build.Default
	ctx.CgoEnabled = false
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") {
			continue
		}
		if ok, err := ctx.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(o.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil || f == nil {
			continue
		}
		switch {
		case !strings.HasSuffix(name, "_test.go"):
			lib = append(lib, f)
		case strings.HasSuffix(f.Name.Name, "_test"):
			xTest = append(xTest, f)
		default:
			inTest = append(inTest, f)
		}
	}
	return
}

func (o *oracle) check(path string, files []*ast.File, info *types.Info) (*types.Package, error) {
	conf := types.Config{Importer: o, Error: func(error) {}, FakeImportC: true}
	if info == nil {
		info = &types.Info{}
	}
	return conf.Check(path, o.fset, files, info)
}

func (o *oracle) rel(pos token.Pos) (string, int) {
	p := o.fset.Position(pos)
	rel, err := filepath.Rel(o.tree, p.Filename)
	if err != nil || strings.HasPrefix(rel, "..") || p.Filename == "" {
		return "", p.Line
	}
	return filepath.ToSlash(rel), p.Line
}

func kindOf(obj types.Object) string {
	switch v := obj.(type) {
	case *types.Func:
		if sig, ok := v.Type().(*types.Signature); ok && sig.Recv() != nil {
			return "method"
		}
		return "func"
	case *types.TypeName:
		return "type"
	case *types.Var:
		return "var"
	case *types.Const:
		return "const"
	case *types.Builtin:
		return "builtin"
	}
	return "other"
}

func (o *oracle) calls(files []*ast.File, info *types.Info, out *bufio.Writer) {
	enc := json.NewEncoder(out)
	for _, f := range files {
		file, _ := o.rel(f.Pos())
		emit := func(id *ast.Ident) {
			p := o.fset.Position(id.Pos())
			c := call{File: file, Line: p.Line, Col: p.Column - 1, Name: id.Name, Decls: []decl{}}
			if obj := info.Uses[id]; obj != nil {
				dfile, dline := "", 0
				if obj.Pkg() != nil || obj.Pos().IsValid() {
					dfile, dline = o.rel(obj.Pos())
				}
				c.Decls = append(c.Decls, decl{File: dfile, Line: dline, Name: obj.Name(), Kind: kindOf(obj)})
			}
			_ = enc.Encode(c)
		}
		named := func(e ast.Expr) *ast.Ident {
			switch v := e.(type) {
			case *ast.Ident:
				return v
			case *ast.SelectorExpr:
				return v.Sel
			}
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch v := n.(type) {
			case *ast.CallExpr:
				if id := named(v.Fun); id != nil {
					emit(id)
				}
			case *ast.CompositeLit:
				if id := named(v.Type); id != nil {
					emit(id)
				}
			}
			return true
		})
	}
}

func newInfo() *types.Info {
	return &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go_oracle <tree>")
		os.Exit(2)
	}
	tree, _ := filepath.Abs(os.Args[1])
	o := &oracle{tree: tree, fset: token.NewFileSet(), pkgs: map[string]*types.Package{}, busy: map[string]bool{}}
	o.std = importer.ForCompiler(o.fset, "source", nil)
	var dirs []string
	_ = filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			base := d.Name()
			if p != tree && (strings.HasPrefix(base, ".") || base == "vendor" || base == "testdata") {
				return filepath.SkipDir
			}
			dirs = append(dirs, p)
			return nil
		}
		if d.Name() == "go.mod" {
			data, _ := os.ReadFile(p)
			for _, line := range strings.Split(string(data), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
					o.modules = append(o.modules, module{strings.Trim(f[1], `"`), filepath.Dir(p)})
				}
			}
		}
		return nil
	})
	// Longest module dir first: a nested module owns its folders.
	sort.Slice(o.modules, func(i, j int) bool { return len(o.modules[i].dir) > len(o.modules[j].dir) })
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for _, dir := range dirs {
		lib, inTest, xTest := o.parseDir(dir)
		if len(lib)+len(inTest)+len(xTest) == 0 {
			continue
		}
		path := o.importPathOf(dir)
		if len(lib) > 0 {
			if _, err := o.Import(path); err != nil {
				fmt.Fprintln(os.Stderr, "go_oracle:", err)
			}
		}
		// The package with its in-package tests answers for both; its external tests are a package of their own.
		info := newInfo()
		_, _ = o.check(path, append(append([]*ast.File{}, lib...), inTest...), info)
		o.calls(append(append([]*ast.File{}, lib...), inTest...), info, out)
		if len(xTest) > 0 {
			xinfo := newInfo()
			_, _ = o.check(path+"_test", xTest, xinfo)
			o.calls(xTest, xinfo, out)
		}
	}
}

// What javac says each call in a Java tree resolves to (benchmarks/graph_accuracy_langs.py reads it).
//
// usage: java -cp <classes> JavaOracle <tree> <file-list.json>
//
// One JSON object a line: {file, line, col, name, decls: [{file, line, name, kind}], failed}; line is 1-based, col
// the 0-based column of the callee's name, a declaration outside the tree has file "". Calls are method
// invocations (`f()`, `x.f()`) and `new T()` (which names the class T, as the index's edge does). The tree's files
// are parsed and attributed together with the JDK only: imports of other libraries fail, and a call javac could
// not attribute (a missing library's method, a call on a value of such a type) is `failed`: no answer at all.
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ParameterizedTypeTree;
import com.sun.source.tree.AnnotatedTypeTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.type.TypeKind;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public final class JavaOracle {
  private static final Pattern QUOTED = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

  private final Path tree;
  private final Trees trees;
  private final StringBuilder out = new StringBuilder();

  private JavaOracle(Path tree, Trees trees) {
    this.tree = tree;
    this.trees = trees;
  }

  public static void main(String[] args) throws IOException {
    Path tree = Paths.get(args[0]).toAbsolutePath().normalize();
    List<Path> files = new ArrayList<>();
    Matcher m = QUOTED.matcher(Files.readString(Paths.get(args[1]), StandardCharsets.UTF_8));
    while (m.find()) files.add(tree.resolve(m.group(1)));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> errors = new DiagnosticCollector<>();  // missing libraries: expected
    StandardJavaFileManager fm = javac.getStandardFileManager(errors, null, StandardCharsets.UTF_8);
    List<String> options = List.of(
        "-proc:none", "-implicit:none", "-Xlint:none", "-nowarn", "-encoding", "UTF-8",
        // Attribute every class even after errors (an unresolved import), so what resolves is still reported.
        "-XDshould-stop.ifError=FLOW", "-XDshould-stop.at=FLOW");
    JavacTask task = (JavacTask) javac.getTask(null, fm, errors, options, null, fm.getJavaFileObjectsFromPaths(files));
    Iterable<? extends CompilationUnitTree> units = task.parse();
    task.analyze();
    JavaOracle oracle = new JavaOracle(tree, Trees.instance(task));
    for (CompilationUnitTree unit : units) oracle.scan(unit);
    System.out.print(oracle.out);
  }

  private String relative(CompilationUnitTree unit) {
    Path p = Paths.get(unit.getSourceFile().toUri()).toAbsolutePath().normalize();
    return p.startsWith(tree) ? tree.relativize(p).toString().replace('\\', '/') : "";
  }

  private void scan(CompilationUnitTree unit) {
    String file = relative(unit);
    SourcePositions positions = trees.getSourcePositions();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        ExpressionTree select = node.getMethodSelect();
        String name = nameOf(select);
        if (name != null && !name.equals("this") && !name.equals("super")) {
          Element target = trees.getElement(new TreePath(getCurrentPath(), select));
          emit(file, unit, positions, select, name, target);
        }
        return super.visitMethodInvocation(node, unused);
      }

      @Override
      public Void visitNewClass(NewClassTree node, Void unused) {
        ExpressionTree type = node.getIdentifier();
        while (type instanceof ParameterizedTypeTree || type instanceof AnnotatedTypeTree) {
          type = type instanceof ParameterizedTypeTree
              ? (ExpressionTree) ((ParameterizedTypeTree) type).getType()
              : ((AnnotatedTypeTree) type).getUnderlyingType();
        }
        String name = nameOf(type);
        if (name != null) {
          Element target = trees.getElement(getCurrentPath());  // the constructor; the index names its class
          if (target != null && target.getKind() == ElementKind.CONSTRUCTOR) target = target.getEnclosingElement();
          emit(file, unit, positions, type, name, target);
        }
        return super.visitNewClass(node, unused);
      }
    }.scan(unit, null);
  }

  private static String nameOf(Tree t) {
    if (t instanceof IdentifierTree) return ((IdentifierTree) t).getName().toString();
    if (t instanceof MemberSelectTree) return ((MemberSelectTree) t).getIdentifier().toString();
    return null;
  }

  private void emit(
      String file, CompilationUnitTree unit, SourcePositions positions, Tree callee, String name, Element target) {
    // The name is the callee's last token: `a.b.name` ends where the name does.
    long end = positions.getEndPosition(unit, callee);
    long at = end > 0 ? end - name.length() : positions.getStartPosition(unit, callee);
    long line = unit.getLineMap().getLineNumber(at);
    long col = unit.getLineMap().getColumnNumber(at) - 1;
    boolean failed = target == null || target.asType().getKind() == TypeKind.ERROR;
    out.append("{\"file\":").append(quote(file)).append(",\"line\":").append(line).append(",\"col\":").append(col)
        .append(",\"name\":").append(quote(name)).append(",\"decls\":[");
    if (!failed) declaration(target);
    out.append("],\"failed\":").append(failed).append("}\n");
  }

  private void declaration(Element target) {
    String name = target.getKind() == ElementKind.CONSTRUCTOR
        ? target.getEnclosingElement().getSimpleName().toString()
        : target.getSimpleName().toString();
    TreePath path = trees.getPath(target);  // null outside the sources compiled here (the JDK)
    String file = "";
    long line = 0;
    if (path != null) {
      CompilationUnitTree unit = path.getCompilationUnit();
      file = relative(unit);
      Tree decl = path.getLeaf();
      long start = trees.getSourcePositions().getStartPosition(unit, decl);
      start = nameAfter(unit, decl, start, name);
      line = unit.getLineMap().getLineNumber(start);
    }
    out.append("{\"file\":").append(quote(file)).append(",\"line\":").append(line).append(",\"name\":")
        .append(quote(name)).append(",\"kind\":").append(quote(target.getKind().toString())).append("}");
  }

  /** Where the declaration's name is written (after its annotations and modifiers), else its start. */
  private static long nameAfter(CompilationUnitTree unit, Tree decl, long start, String name) {
    if (!(decl instanceof MethodTree || decl instanceof ClassTree)) return start;
    try {
      CharSequence text = unit.getSourceFile().getCharContent(true);
      Matcher m = Pattern.compile("\\b" + Pattern.quote(name) + "\\b").matcher(text);
      return m.find((int) start) ? m.start() : start;
    } catch (IOException e) {
      return start;
    }
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }
}

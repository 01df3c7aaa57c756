"""op-recipe.py SRC: checks docs/architecture.md's "Adding an op" against the
tree. Each file the recipe names exists; every builtin of
lang/include/gnn/lang/BuiltinOps.def has its table entry (Builtins.cpp), its
lowering (BuiltinLowering.cpp) and, outside the Elementwise family, its
result-type rule (SemaBuiltins.cpp); every op of GNNVisitor.h that computes
a tensor has its shape rule in ShapeRules.h; and no source of lang/ or compiler/
dispatches on a name with `name == "...` (issue 27 allowed 5 in SemaExpr.cpp
and MLIRGen.cpp together, from 45). Prints `ok:` or `FAILED:` per check and
exits 1 on a failure."""
import os
import re
import sys

src = sys.argv[1]
failed = False


def report(ok, message):
    global failed
    print(("ok: " if ok else "FAILED: ") + message)
    failed |= not ok


def read(path):
    with open(os.path.join(src, path), encoding="utf-8") as f:
        return f.read()


doc = read("docs/architecture.md")
recipe = doc[doc.index("### Adding an op"):doc.index("### Train settings")]
named = sorted(set(re.findall(r"`((?:lang|compiler|runtime)/[\w/.<>-]+)`", recipe)))
concrete = [p for p in named if "<" not in p]
missing = [p for p in concrete if not os.path.exists(os.path.join(src, p))]
report(not missing and len(concrete) >= 8,
       "the recipe names %d files, each present%s" %
       (len(concrete), "" if not missing else "; missing: " + ", ".join(missing)))

ops = re.findall(r"^GNN_BUILTIN_OP\((\w+), (\w+), (\w+)\)",
                 read("lang/include/gnn/lang/BuiltinOps.def"), re.M)
table = read("lang/lib/Builtins.cpp")
rules = read("lang/lib/sema/SemaBuiltins.cpp")
lowering = read("compiler/lib/MLIRGen/BuiltinLowering.cpp")
no_entry = [i for i, _, _ in ops
            if not re.search(r"\{BuiltinOp::%s,\s*C::Forward" % i, table)]
no_rule = [i for i, _, f in ops
           if f != "Elementwise" and "case BuiltinOp::%s:" % i not in rules]
no_lowering = [i for i, _, _ in ops if "case BuiltinOp::%s:" % i not in lowering]
report(not no_entry, "%d builtins, each with its table entry%s" %
       (len(ops), "" if not no_entry else "; none for " + ", ".join(no_entry)))
report(not no_rule, "each graph, axis and structural builtin has its result-type "
       "rule" + ("" if not no_rule else "; none for " + ", ".join(no_rule)))
report(not no_lowering, "each builtin has its lowering" +
       ("" if not no_lowering else "; none for " + ", ".join(no_lowering)))

# Ops without a tensor result, or that no target computes, have no shape rule.
NO_SHAPE = {"ParamGradOp", "InputGradOp", "BlockOp", "RelationOp", "ReadoutOp",
            "PairsOp", "ParameterOp", "YieldOp"}
visitor_ops = set(re.findall(r"::gnn::(\w+Op)\b",
                             read("compiler/include/gnn/Dialect/GNN/GNNVisitor.h")))
shape_rules = set(re.findall(r"\b(\w+Op)\b",
                             read("compiler/include/gnn/Dialect/GNN/ShapeRules.h")))
no_shape = sorted(visitor_ops - NO_SHAPE - shape_rules)
report(len(visitor_ops) > 40 and not no_shape,
       "each of the %d ops that computes a tensor has its shape rule%s" %
       (len(visitor_ops - NO_SHAPE),
        "" if not no_shape else "; none for " + ", ".join(no_shape)))

dispatch = {}
for top in ("lang", "compiler"):
    for dirpath, _, files in os.walk(os.path.join(src, top)):
        for name in files:
            if name.endswith((".cpp", ".h")):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    count = f.read().count('name == "')
                if count:
                    dispatch[os.path.relpath(path, src)] = count
front = dispatch.get("lang/lib/sema/SemaExpr.cpp", 0) + \
    dispatch.get("compiler/lib/MLIRGen/MLIRGen.cpp", 0)
report(front <= 5, 'SemaExpr.cpp and MLIRGen.cpp dispatch on a name %d times '
       '(at most 5)' % front)
for path, count in sorted(dispatch.items()):
    print("note: %s compares a name %d times" % (path, count))
sys.exit(1 if failed else 0)

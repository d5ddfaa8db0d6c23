"""The package's layers, read from its imports (docs/design.md, "The layers").

An ``ast`` walk over every module collects its imports of other minijax modules, at
module level and inside functions. Each top-level module or subpackage belongs to one
layer; an import may only run down the list below. The one exception is the deferred
``interpreters`` -> ``lax`` import (the JVP and batching rules add tangents and move batch
axes with ``lax`` operations while ``lax`` registers its rules into the interpreters),
the same circle JAX has."""

import ast
import pathlib

import minijax

PACKAGE = pathlib.Path(minijax.__file__).parent

# Bottom to top; the modules of one layer may import each other.
LAYERS = [
    ["__version__", "config", "errors"],
    ["_checks", "dtypes", "traceback_util"],
    ["util", "tree_util", "tree"],
    ["core"],
    ["backend"],
    ["interpreters"],
    ["runtime"],
    ["_mutation", "_array_type"],
    ["lax"],
    ["api"],
    ["custom_derivatives", "custom_batching", "checkpoint", "ad_checkpoint", "jacobians", "callbacks", "debug",
     "extend"],
    ["numpy"],
    ["random", "scipy", "nn", "dlpack", "sharding", "test_util", "experimental", "distributed",
     "flatten_util", "image"],
    ["minijax"],
]
ALLOWED_BACK_ARROWS = {("interpreters", "lax")}

RANK = {name: i for i, names in enumerate(LAYERS) for name in names}


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports():
    """(importing module, imported module, deferred, line) for every minijax import."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text())

        def visit(node, deferred):
            for child in ast.iter_child_nodes(node):
                inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                if isinstance(child, ast.Import):
                    targets = [a.name for a in child.names]
                elif isinstance(child, ast.ImportFrom):
                    if child.level:
                        base = package.split(".")[:len(package.split(".")) - child.level + 1]
                        module = ".".join(base + ([child.module] if child.module else []))
                    else:
                        module = child.module
                    targets = ([module] if child.module else
                               [f"{module}.{alias.name}" for alias in child.names])
                else:
                    visit(child, inner)
                    continue
                found.extend((name, t, deferred, child.lineno) for t in targets
                             if t.split(".")[0] == "minijax")
        visit(tree, False)
    return found


def _layer(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "minijax"


def test_every_module_has_a_layer():
    layers = {_layer(_module_name(p)) for p in PACKAGE.rglob("*.py")}
    assert layers <= set(RANK), f"add to LAYERS: {sorted(layers - set(RANK))}"


def test_imports_run_down_the_layers():
    back = {}
    for importer, imported, deferred, line in _imports():
        a, b = _layer(importer), _layer(imported)
        if RANK[a] < RANK[b]:
            back.setdefault((a, b), []).append((importer, imported, deferred, line))
    unexpected = {k: v for k, v in back.items() if k not in ALLOWED_BACK_ARROWS}
    assert not unexpected, "imports running up the layers:\n" + "\n".join(
        f"  {m} -> {t} (line {ln}{', deferred' if d else ''})"
        for v in unexpected.values() for m, t, d, ln in v)
    for importer, imported, deferred, line in back.get(("interpreters", "lax"), []):
        assert deferred, f"{importer} line {line}: the interpreters import lax only at call time"


def test_deferred_imports_say_why():
    """CONTRIBUTING: an import inside a function carries a one-line comment (on its line
    or the line above) naming the cycle or cost that keeps it there."""
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text().splitlines()
        tree = ast.parse("\n".join(lines))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    # one comment serves a run of imports: look above the run's first line
                    first = node.lineno - 1
                    while first > 0 and lines[first - 1].strip().startswith(("from ", "import ")):
                        first -= 1
                    if not any("#" in line for line in lines[first - 1:node.end_lineno]):
                        missing.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert not missing, "function-level imports without their why:\n" + "\n".join(
        sorted(set(missing)))

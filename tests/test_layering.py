"""The layers: what each part of the project may load, and no import cycles.

core (companion/ without the app wiring and the CLI commands that drive the camera, screen or
buttons) <- vision, display, hardware <- the app wiring (companion.app) and those commands.
Each group is imported in a fresh interpreter and must not have loaded what its layer may not
use; and a static look at every module's imports (those inside functions too) finds cycles and
counts the function-level imports of the project's own modules.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "vision", "display", "hardware")

# The wiring and the CLI commands that open the camera, the screen or the buttons: the layer
# above vision, display and hardware.
WIRING = (
    "companion.app",
    "companion.commands.mat",
    "companion.commands.referee",
    "companion.commands.run",
    "companion.commands.vision",
)

CORE = (
    "companion",
    "companion.cli",
    "companion.commands",
    "companion.dice",
    "companion.entry",
    "companion.errors",
    "companion.export",
    "companion.files",
    "companion.games",
    "companion.geometry",
    "companion.highlights",
    "companion.i18n",
    "companion.observation",
    "companion.option_words",
    "companion.records",
    "companion.referee",
    "companion.speech",
    "companion.svg",
    "companion.usb_drives",
    "companion.usb_export",
)
CORE_MAY_NOT = ("cv2", "pygame", "gpiozero", "vision", "display", "hardware")

# What each layer below the wiring never loads. (display may use hardware.keyboard: the
# keyboard stands in for the table's buttons.)
LAYERS = {
    "vision": ("display", "pygame", "gpiozero", "hardware"),
    "display": ("vision", "cv2", "gpiozero"),
    "hardware": ("vision", "display", "cv2", "pygame"),
}

ALLOWED_CYCLES: set[frozenset[str]] = set()  # none: move the code instead


def modules() -> dict[str, Path]:
    """Every module of the project: dotted name -> file."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The project module an imported name refers to (a name inside a module: the module)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def _type_checking_only(node: ast.AST) -> bool:
    """`if TYPE_CHECKING:` - imports for the type checker alone."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", "")
    return name == "TYPE_CHECKING"


def imports(module: str, path: Path, known: dict[str, Path]) -> list[tuple[str, bool, int]]:
    """The project modules `module` imports: (module, inside a function, line)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, bool, int]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking_only(child):
                continue  # never imported when the program runs
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parent = package.split(".")
                    parent = parent[: len(parent) - (child.level - 1)]
                    base = ".".join([*parent, base] if base else parent)
                # `from package import module` imports the module; else a name in `base`.
                names = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                    for alias in child.names
                ]
            for name in names:
                target = _resolve(name, known)
                if target is not None and target != module:
                    found.append((target, in_function, child.lineno))
            visit(child, nested)

    visit(tree, False)
    return found


def import_graph() -> tuple[dict[str, set[str]], list[str]]:
    """module -> the project modules it imports; and every function-level import of one."""
    known = modules()
    graph: dict[str, set[str]] = {}
    late: list[str] = []
    for module, path in known.items():
        graph[module] = set()
        for target, in_function, line in imports(module, path, known):
            graph[module].add(target)
            entry = f"{path.relative_to(ROOT)}:{line} imports {target}"
            if in_function and entry not in late:
                late.append(entry)
    return graph, late


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def connect(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def loaded_after_import(module: str) -> set[str]:
    """The top-level names in sys.modules after importing `module` in a fresh interpreter."""
    code = (
        f"import json, sys; import {module}; "
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_every_core_module_is_listed():
    """A new core module is checked too: every companion module is core or wiring."""
    unlisted = [
        m
        for m in modules()
        if m.startswith("companion.")
        and m != "companion.__main__"
        and not m.startswith("companion.app.")
        and m not in WIRING
        and not any(m == c or m.startswith(c + ".") for c in CORE if c != "companion")
    ]
    assert not unlisted, f"add these to CORE in {Path(__file__).name}: {unlisted}"


def _group(name: str) -> list[str]:
    """A module or package with every module in it, without the wiring."""
    return [
        m
        for m in modules()
        if (m == name or m.startswith(name + "."))
        and not any(m == w or m.startswith(w + ".") for w in WIRING)
    ]


@pytest.mark.parametrize("module", CORE)
def test_the_core_loads_no_camera_screen_or_buttons(module):
    group = _group(module) if module != "companion" else [module]
    loaded = loaded_after_import("; import ".join(group))
    assert not loaded & set(CORE_MAY_NOT), f"{module} loads {sorted(loaded & set(CORE_MAY_NOT))}"


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_vision_display_and_hardware_keep_to_their_layer(package):
    forbidden = LAYERS[package]
    loaded = loaded_after_import("; import ".join(_group(package)))
    assert not loaded & set(forbidden), f"{package} loads {sorted(loaded & set(forbidden))}"


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycles():
    graph, _ = import_graph()
    found = [c for c in cycles(graph) if frozenset(c) not in ALLOWED_CYCLES]
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


# Function-level imports of the project's own modules in companion/commands/ and
# companion/games/ (file -> the module it imports inside a function).
ALLOWED_LATE: frozenset[str] = frozenset()  # none: every late import counts
MAX_LATE_IMPORTS = 20


def _late_key(entry: str) -> str:
    """An entry of `import_graph` as ALLOWED_LATE names it: file -> module, no line."""
    where, _, target = entry.partition(" imports ")
    return f"{where.rpartition(':')[0]} -> {target}"


def test_few_function_level_imports_of_the_project():
    _, late = import_graph()
    counted = [line for line in late if _late_key(line) not in ALLOWED_LATE]
    print("\n".join(counted))
    assert len(counted) <= MAX_LATE_IMPORTS, (
        f"{len(counted)} function-level imports of the project's own modules "
        f"(at most {MAX_LATE_IMPORTS}):\n" + "\n".join(counted)
    )


# Function length: long functions hide their steps. The project's own code (bench/ included,
# tests not) has none over MAX_FUNCTION_LINES and at most MAX_LONG_FUNCTIONS over
# LONG_FUNCTION_LINES (speed-critical searches such as Arimaa's turn walker may be one piece).
MAX_FUNCTION_LINES = 100
LONG_FUNCTION_LINES = 80
MAX_LONG_FUNCTIONS = 3


def function_lengths() -> list[tuple[int, str]]:
    """(lines, "path:line name") of every function and method outside tests/, longest first;
    a function's lines run from its `def` (decorators left out) to its last line."""
    found = []
    for folder in (*PACKAGES, "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    where = f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"
                    found.append((lines, where))
    return sorted(found, reverse=True)


def test_no_function_over_100_lines_and_few_over_80():
    lengths = function_lengths()
    assert lengths, "no functions found"
    too_long = [f"{n} lines: {where}" for n, where in lengths if n > MAX_FUNCTION_LINES]
    long = [f"{n} lines: {where}" for n, where in lengths if n > LONG_FUNCTION_LINES]
    assert not too_long, f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(too_long)
    assert len(long) <= MAX_LONG_FUNCTIONS, (
        f"{len(long)} functions over {LONG_FUNCTION_LINES} lines (at most "
        f"{MAX_LONG_FUNCTIONS}): split them by meaning:\n" + "\n".join(long)
    )

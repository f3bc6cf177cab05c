"""The house by stage (docs/layout.md, docs/extending.md), read from the source with ast.

Imports run one way, from the top of STAGES down: a module imports its own stage or one
below it, never one above. No import circle, between modules or between packages, whether
the import runs at load, inside a function or only for type checking. Nothing below
``app/`` writes to stdout or stderr; ``render/`` and ``scoring/`` do no I/O. No module is
longer than ``MAX_LINES``, and only the entry points and the version sit loose at the top.
"""

from __future__ import annotations

import ast
import builtins
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

# One worker reads the package's modules and import graph (cached below) for this module, not
# each worker that draws one of its tests (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("layout")

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "goldgate"

STAGES = (
    "app",
    "github",
    "render",
    "comparison",
    "evals",
    "run",
    "report",
    "scoring",
    "gold",
    "base",
)
"""Top to bottom: each stage may import the stages after it, none before it."""

ENTRY_POINTS = frozenset({"goldgate", "goldgate.cli", "goldgate.__main__"})
"""Above every stage: the public face and the command line."""
LOOSE = frozenset({"__init__.py", "__main__.py", "cli.py", "_version.py"})
MAX_LINES = 500


WRITERS = frozenset(
    {"write_stdout", "write_json", "write_commands", "write_stderr_command", "warn"}
)
"""``goldgate.base.stdio``'s writers: only the commands (``app/``, ``cli.py``) call them."""
NO_IO_STAGES = ("render", "scoring")
IO_CALLS = frozenset({"open", "import_module", "import_attribute", "__import__"})
IO_METHODS = frozenset(
    {"read_text", "read_bytes", "write_text", "write_bytes", "open", "mkdir", "unlink"}
)
IO_MODULES = frozenset({"os", "shutil", "subprocess", "socket", "tempfile", "importlib"})


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"

    @property
    def package(self) -> str:
        return self.name if self.is_package else self.name.rpartition(".")[0]


@cache
def module_paths() -> dict[str, Path]:
    """Each module's file by the module's name (what the tests are parametrized by: reading
    no file, so that collecting them in each test process costs nothing)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ["goldgate", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


@cache
def modules() -> dict[str, Module]:
    return {
        name: Module(name, path, ast.parse(path.read_text("utf-8"), str(path)))
        for name, path in module_paths().items()
    }


def imported(module: Module) -> Iterator[tuple[str, int]]:
    """Every goldgate module ``module`` imports (with the line), wherever the import sits."""
    known = modules()
    for node in ast.walk(module.tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{module.path}:{node.lineno}: a relative import"
            base = node.module or ""
            # ``from package import module`` imports the module; ``from module import name``
            # the module alone.
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            if name in known and name != module.name:
                yield name, node.lineno


@cache
def graph() -> dict[str, frozenset[str]]:
    return {name: frozenset(n for n, _ in imported(m)) for name, m in modules().items()}


def stage(name: str) -> int:
    """The stage's place in STAGES; -1 above them all, len(STAGES) below them all."""
    if name in ENTRY_POINTS:
        return -1
    if name == "goldgate._version":
        return len(STAGES)
    return STAGES.index(name.split(".")[1])


def cycles(edges: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_is_read() -> None:
    # The checks below are only as good as the graph: it must see the imports that exist.
    edges = graph()
    assert len(edges) > 100
    assert "goldgate.base.errors" in edges["goldgate.base.files"]
    assert "goldgate.gold.settings.load" in edges["goldgate.gold.load"]  # inside a function


def test_no_import_runs_up_a_stage() -> None:
    upward = [
        f"{modules()[name].path.relative_to(PACKAGE)}:{line}: {name} imports {target}"
        for name, module in modules().items()
        for target, line in imported(module)
        if stage(target) < stage(name)
    ]
    assert upward == []


def test_no_import_circle_between_modules() -> None:
    assert cycles(graph()) == []


def test_no_import_circle_between_packages() -> None:
    # A package's modules may use its subpackages and be used by them (gold/_stream is
    # gold's own); between packages that do not nest, imports go one way.
    edges: dict[str, set[str]] = defaultdict(set)
    known = modules()
    for name, targets in graph().items():
        source = known[name].package
        for target in targets:
            into = known[target].package
            nested = into.startswith(source + ".") or source.startswith(into + ".")
            if into != source and not nested:
                edges[source].add(into)
    assert cycles({name: frozenset(targets) for name, targets in edges.items()}) == []


def test_the_cycle_finder_finds_cycles() -> None:
    edges = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset()}
    assert cycles(edges) == [["a", "b", "c"]]


@pytest.mark.parametrize("name", sorted(module_paths()))
def test_no_module_is_longer_than_a_sitting(name: str) -> None:
    path = module_paths()[name]
    lines = len(path.read_text("utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(PACKAGE)}: {lines} lines"


def test_only_the_entry_points_sit_loose_at_the_top() -> None:
    loose = {path.name for path in PACKAGE.glob("*.py")}
    assert loose <= LOOSE
    folders = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert folders == set(STAGES)


def _writes_to_a_stream(module: Module) -> list[str]:
    found = []
    for node in ast.walk(module.tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "print":
                found.append(f"{line}: print()")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "sys" and node.attr in {"stdout", "stderr", "__stdout__"}:
                found.append(f"{line}: sys.{node.attr}")
            if node.value.id == "typer" and node.attr in {"echo", "secho"}:
                found.append(f"{line}: typer.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "goldgate.base.stdio":
            found += [f"{line}: {a.name}" for a in node.names if a.name in WRITERS]
    return found


# The stream layer itself, and the child's side of the supervisor's pipe (it settles the
# streams before the process ends): they own stdout and stderr, and print nothing of their own.
STREAM_OWNERS = frozenset({"goldgate.base.stdio"})


def test_nothing_below_app_prints() -> None:
    printing = {
        name: writes
        for name, module in modules().items()
        if stage(name) > 0 and name not in STREAM_OWNERS
        if (writes := _writes_to_a_stream(module))
    }
    assert printing == {}


def _does_io(module: Module) -> list[str]:
    found = []
    for node in ast.walk(module.tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in IO_CALLS:
                found.append(f"{line}: {func.id}()")
            if isinstance(func, ast.Attribute) and func.attr in IO_METHODS:
                found.append(f"{line}: .{func.attr}()")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            found += [f"{line}: import {n}" for n in names if (n or "").split(".")[0] in IO_MODULES]
    return found


@pytest.mark.parametrize("stage_name", NO_IO_STAGES)
def test_render_and_scoring_do_no_io(stage_name: str) -> None:
    doing_io = {
        name: io
        for name, module in modules().items()
        if name.startswith(f"goldgate.{stage_name}.") or name == f"goldgate.{stage_name}"
        if (io := _does_io(module))
    }
    assert doing_io == {}


def test_the_map_in_the_docs_is_the_house() -> None:
    # docs/layout.md draws the top of the package in a code block: the same folders, in the
    # import order this test enforces, and the same loose modules.
    text = (PACKAGE.parents[1] / "docs" / "layout.md").read_text("utf-8")
    block = text.split("```\nsrc/goldgate/\n", 1)[1].split("```", 1)[0]
    entries = [line.split()[0] for line in block.splitlines() if line.strip()]
    assert [e.rstrip("/") for e in entries if e.endswith("/")] == list(STAGES)
    assert {e for e in entries if e.endswith(".py")} == LOOSE - {"__main__.py"}


# Private control flow that never leaves its module (raised and caught within it): outside
# GoldgateError on purpose, each with a comment at its class saying so.
PRIVATE_CONTROL_FLOW = frozenset(
    {
        ("goldgate.gold.patterns", "_Expired"),
        ("goldgate.app.promptfoo.assertions", "_Person"),
        ("goldgate.app.promptfoo.assertions", "_Module"),
        ("goldgate.gold._stream.streamed", "_HasProblems"),
        ("goldgate.app.action.baseline", "_DeadlinePassed"),
        ("goldgate.app.action.verifying", "_Unverified"),
        ("goldgate.report.verify", "_Broken"),
        ("goldgate.report.scan", "_Unstreamable"),
        ("goldgate.report.mergecase", "_Unsure"),
        ("goldgate.evals.values", "_NotJson"),
        ("goldgate.run.targets._documents", "_NotJson"),
        ("goldgate.evals.runtime", "_Unconvertible"),
    }
)
_BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


def _classes() -> dict[tuple[str, str], list[str]]:
    """Every class at any depth of src, by (module, name), with its bases' last names."""
    found = {}
    for name, module in modules().items():
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(base).rpartition(".")[2] for base in node.bases]
                found[name, node.name] = bases
    return found


def _ancestors(bases: list[str], by_name: dict[str, list[str]]) -> set[str]:
    seen: set[str] = set()
    work = list(bases)
    while work:
        base = work.pop()
        if base not in seen:
            seen.add(base)
            work += by_name.get(base, [])
    return seen


def exception_classes() -> dict[tuple[str, str], set[str]]:
    """Every exception class in src, with the names of all its ancestors."""
    classes = _classes()
    by_name: dict[str, list[str]] = {}
    for (_, name), bases in classes.items():
        by_name.setdefault(name, []).extend(bases)
    return {
        key: ancestors
        for key, bases in classes.items()
        if (ancestors := _ancestors(bases, by_name)) & _BUILTIN_EXCEPTIONS
    }


def test_the_exception_finder_sees_them() -> None:
    found = exception_classes()
    assert ("goldgate.base.errors", "InvalidInputError") in found
    assert ("goldgate.github.errors", "EventError") in found
    assert found.keys() >= PRIVATE_CONTROL_FLOW


def test_every_exception_is_a_goldgate_error_declared_in_an_errors_module() -> None:
    # A whole-run failure is a GoldgateError, with its exit code, and each stage's live in its
    # ``errors`` module (or base/errors.py); BaseException control flow (LoopBlocked) and
    # the private control flow listed above are the only others.
    strays = []
    for (module, name), ancestors in sorted(exception_classes().items()):
        if (module, name) in PRIVATE_CONTROL_FLOW:
            assert name.startswith("_"), f"{module}.{name}: listed as private but public"
            continue
        if "Exception" not in ancestors and "BaseException" in ancestors:
            continue  # control flow that no ``except Exception`` may swallow
        if name != "GoldgateError" and "GoldgateError" not in ancestors:
            strays.append(f"{module}.{name}: not a GoldgateError")
        if module.rpartition(".")[2] != "errors":
            strays.append(f"{module}.{name}: not declared in an errors module")
    assert strays == []


def test_every_package_says_what_it_offers() -> None:
    # Each package's __init__ has __all__; every name in it can be imported from the package
    # (a name it defines, loads lazily or a module of it), and every public function or class
    # it defines is named there.
    import importlib
    import importlib.util

    packages = sorted(name for name, module in modules().items() if module.is_package)
    assert len(packages) == 19
    problems = []
    for name in packages:
        tree = modules()[name].tree
        declared = [
            node
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        ]
        if not declared:
            problems.append(f"{name}: no __all__")
            continue
        offered = ast.literal_eval(declared[0].value)
        package = importlib.import_module(name)
        for each in offered:
            if not hasattr(package, each) and importlib.util.find_spec(f"{name}.{each}") is None:
                problems.append(f"{name}: {each} in __all__ cannot be imported")
        defined = {
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and not node.name.startswith("_")
        }
        missing = sorted(defined - set(offered))
        problems += [f"{name}: {each} defined but not in __all__" for each in missing]
    assert problems == []


# Functions you can call by reading them (issue 40): none takes more than MAX_PARAMETERS, and
# in one that takes more than FEW, parameters that share a type are keyword-only, so that no
# call reads ``f(x, None, None, False, 3)``. ``self`` and ``cls`` do not count.
MAX_PARAMETERS = 8
FEW = 4
SIGNATURES_KEPT = frozenset(
    {
        # The typer commands: typer reads each option from a parameter.
        ("goldgate.cli", "*"),
        # EZVals' own signatures, which eval files call as EZVals documents them: the @eval
        # decorator and the context an eval stores its values in.
        ("goldgate.evals._decorator", "eval"),
        ("goldgate.evals._context", "EvalContext.__init__"),
        ("goldgate.evals._context", "EvalContext.store"),
        # The seed's Python API builds an Expectation positionally (positional-only there).
        ("goldgate.gold.models", "Expectation.__init__"),
        # urllib3's Retry.increment, overridden: urllib3 calls it with its own signature.
        ("goldgate.github.client", "_retry_class.BoundedRetry.increment"),
    }
)


def _functions(module: Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function of ``module`` with its qualified name (``Class.method``)."""

    def walk(
        node: ast.AST, prefix: str
    ) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield prefix + child.name, child
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(module.tree, "")


def _signature_kept(module: str, name: str) -> bool:
    if module.startswith("goldgate.app.commandline.") or (module, "*") in SIGNATURES_KEPT:
        return True
    return (module, name) in SIGNATURES_KEPT


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[list[ast.arg], int]:
    """The parameters that may be passed by position (``self``/``cls`` aside) and how many
    parameters there are in all."""
    args = function.args
    positional = args.posonlyargs + args.args
    if positional and positional[0].arg in {"self", "cls"}:
        positional = positional[1:]
    return positional, len(positional) + len(args.kwonlyargs)


def _signatures() -> tuple[list[str], set[tuple[str, str]]]:
    shared, too_many = [], set()
    for module_name, module in modules().items():
        for name, function in _functions(module):
            if _signature_kept(module_name, name):
                continue
            positional, count = _parameters(function)
            if count > MAX_PARAMETERS:
                too_many.add((module_name, name))
            if count > FEW:
                types = [
                    ast.unparse(arg.annotation) if arg.annotation else "" for arg in positional
                ]
                alike = sorted({t for t in types if types.count(t) > 1})
                if alike:
                    shared.append(f"{module_name}.{name}: positional {', '.join(alike)}")
    return shared, too_many


def test_parameters_that_share_a_type_are_passed_by_keyword() -> None:
    shared, _ = _signatures()
    assert shared == []


def test_no_function_takes_more_than_eight_parameters() -> None:
    _, too_many = _signatures()
    assert sorted(too_many) == []


def test_the_signature_check_sees_what_it_must() -> None:
    source = "def f(a: int, b: str, c: int, d: str, e: float) -> None: ...\n"
    module = Module("goldgate.toy", PACKAGE / "toy.py", ast.parse(source))
    [(name, function)] = list(_functions(module))
    positional, count = _parameters(function)
    assert (name, [arg.arg for arg in positional], count) == ("f", ["a", "b", "c", "d", "e"], 5)
    kept = {name for name, _ in _functions(modules()["goldgate.evals._context"])}
    assert {"EvalContext.__init__", "EvalContext.store"} <= kept

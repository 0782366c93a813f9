"""The import graph: petool's own modules imported at the top of each file, no import cycle, no heavy
library (torch, gradio, ...) loaded by importing a petool module, gradio only under petool/ui/."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers", "peft", "trl", "xgrammar", "gradio", "plotly", "datasets")
"""Libraries that cost seconds or a GPU to import: petool imports them inside the functions that use them."""

ALLOWED_LOCAL_IMPORTS: dict[tuple[str, str], str] = {}
"""(file, petool module) -> why that petool module is imported inside a function. The only reason
accepted is that the petool module itself imports a HEAVY library when imported (checked below);
every other import of petool's own modules goes at the top of the file, where the reader sees it."""


def _product_files() -> list[Path]:
    return sorted((ROOT / "petool").rglob("*.py")) + [ROOT / "app.py"]


def _modules() -> list[str]:
    names = []
    for path in sorted((ROOT / "petool").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _imported_module(node: ast.Import | ast.ImportFrom, path: Path, root: Path = ROOT) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:  # relative: resolve against the file's package
        package = path.relative_to(root).with_suffix("").parts[: -node.level]
        base = ".".join(package + ((node.module,) if node.module else ()))
    else:
        base = node.module or ""
    # ``from petool import stats`` imports the module petool.stats
    folder = root.joinpath(*base.split("."))
    modules = [f"{base}.{a.name}" if (folder / f"{a.name}.py").exists() or (folder / a.name).is_dir() else base for a in node.names]
    return list(dict.fromkeys(modules))


def _is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _local_imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, module) for each import that is not a statement of the module's top level (inside a
    function, a class, or an ``if``/``try`` block other than ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    top = {id(node) for node in tree.body}
    for block in tree.body:
        if _is_type_checking_block(block):
            top |= {id(node) for node in block.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top:
            found += [(node.lineno, module) for module in _imported_module(node, path, root)]
    return found


def test_petool_modules_are_imported_at_the_top_of_each_file():
    hidden = []
    for path in _product_files():
        rel = path.relative_to(ROOT).as_posix()
        for line, module in _local_imports(path):
            if (module == "petool" or module.startswith("petool.")) and (rel, module) not in ALLOWED_LOCAL_IMPORTS:
                hidden.append(f"{rel}:{line} imports {module} inside a block")
    assert not hidden, "import these at the top of the file (or allow-list a heavy one, with its reason):\n" + "\n".join(hidden)


def _allow_list_problems(allowed: dict[tuple[str, str], str]) -> list[str]:
    problems = []
    for (rel, module), reason in allowed.items():
        if not reason.strip():
            problems.append(f"{rel}: say why {module} is imported lazily")
        if module not in {m for _, m in _local_imports(ROOT / rel)}:
            problems.append(f"{rel} no longer imports {module} inside a block")
        code = f"import sys, {module}; print(sorted(h for h in {HEAVY!r} if h in sys.modules))"
        loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        if loaded.strip() == "[]":
            problems.append(f"{module} loads no heavy library: import it at the top of {rel}")
    return problems


def test_the_allow_list_holds_only_present_imports_of_heavy_modules():
    assert _allow_list_problems(ALLOWED_LOCAL_IMPORTS) == []
    stale = _allow_list_problems({("petool/cli.py", "petool.schema"): ""})
    assert len(stale) == 3 and "no heavy library" in stale[-1], stale


def test_the_import_scan_sees_function_and_block_imports(tmp_path):
    """The scanner itself: an import inside a function or an ``if`` counts, one under TYPE_CHECKING does not."""
    sample = tmp_path / "petool" / "sample.py"
    sample.parent.mkdir()
    (sample.parent / "parsing.py").write_text("", encoding="utf-8")
    sample.write_text(
        "from typing import TYPE_CHECKING\n"
        "from petool import schema\n"
        "if TYPE_CHECKING:\n    from petool.predictors import Predictor\n"
        "def f():\n    from petool.scoring import score_call\n    from . import parsing\n"
        "if __name__ == '__main__':\n    import petool.cli\n",
        encoding="utf-8",
    )
    assert _local_imports(sample, tmp_path) == [(6, "petool.scoring"), (7, "petool.parsing"), (9, "petool.cli")]


def test_every_module_imports_on_its_own_without_heavy_libraries():
    """Each module in a fresh interpreter: an import cycle fails for some first module, whatever order
    the test suite happens to import them in; and importing never starts torch, gradio or the like."""
    code = "import importlib, sys; importlib.import_module(sys.argv[1]); print(sorted(h for h in {!r} if h in sys.modules))"
    runs = {
        module: subprocess.Popen(
            [sys.executable, "-c", code.format(HEAVY), module], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for module in _modules()
        if module != "petool.__main__"  # runs the CLI when imported
    }
    problems = []
    for module, proc in runs.items():
        out, err = proc.communicate(timeout=120)
        if proc.returncode != 0:
            problems.append(f"{module}: {err.strip().splitlines()[-1] if err.strip() else proc.returncode}")
        elif out.strip() != "[]":
            problems.append(f"{module} loads {out.strip()} when imported")
    assert len(runs) > 40 and not problems, "\n".join(problems)


def test_only_petool_ui_imports_gradio():
    files = [p for p in _product_files() if "ui" not in p.relative_to(ROOT).parts[:2]]
    files += sorted((ROOT / "scripts").rglob("*.py")) + sorted((ROOT / "benchmarks").rglob("*.py"))
    offenders = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for module in _imported_module(node, path):
                    if module == "gradio" or module.startswith("gradio."):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert len(files) > 30 and not offenders, offenders

"""The rules engine and the bots compiled with mypyc at install time, where possible.

pyproject.toml holds the project's metadata; this file only adds the extensions.
``pip install --no-build-isolation`` (run.py) builds them with the venv's pinned mypy.
Without a working C compiler (or mypyc), the package installs pure, as it is in the
sources, and says so once; ``bohnanza --version`` tells which build runs
(bohnanza_core/build.py).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location(
    "_bohnanza_build", ROOT / "bohnanza_core" / "build.py")
assert _spec is not None and _spec.loader is not None
build_info = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = build_info
_spec.loader.exec_module(build_info)

GROUP = "bohnanza_core._native"
"""mypyc's shared library goes inside the package (bohnanza_core/_native__mypyc*.so),
where an editable install and the console script find it."""


def say(message: str) -> None:
    print(f"bohnanza-platform build: {message}", file=sys.stderr, flush=True)


SETUPTOOLS_CHECKED_AGAINST = "80.9.0"
"""The setuptools version (requirements.lock pins it) whose vendored distutils
:func:`compiler_refusal` uses: ``setuptools._distutils``, not setuptools' API, since no
public API builds a C compiler without an extension to build.
tests/core/test_build.py checks the names and signatures it relies on."""


def compiler_refusal() -> str | None:
    """Why no C extension can be built here (None: a compiler builds a tiny one). The
    only use of a library's internals at install time: see SETUPTOOLS_CHECKED_AGAINST."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler

    compiler = new_compiler()
    customize_compiler(compiler)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "probe.c"
        source.write_text("#include <Python.h>\nint probe(void) { return 0; }\n")
        try:
            from sysconfig import get_paths

            compiler.compile([str(source)], output_dir=tmp,
                             include_dirs=[get_paths()["include"]])
        except Exception as error:  # any failure means: no compiled build here
            return f"no working C compiler ({error})".replace("\n", " ")
    return None


def mypyc_extensions() -> tuple[list[Any], str | None]:
    """The compiled modules' extensions, or none and why."""
    refusal = compiler_refusal()
    if refusal is not None:
        return [], refusal
    try:
        from mypyc.build import mypycify
    except ImportError:
        return [], "mypyc is not installed (it ships with mypy)"
    paths = [str(build_info.source_path(module, Path("bohnanza_core")))
             for module in build_info.COMPILED]
    try:
        extensions = mypycify(paths, opt_level="3", group_name=GROUP)
    except BaseException as error:  # mypyc exits (SystemExit) on a type error
        if isinstance(error, KeyboardInterrupt):
            raise
        return [], f"mypyc failed ({type(error).__name__}: {error})"
    return extensions, None


class BuildExt(build_ext):
    """Builds the extensions; on a compiler failure, leaves the package pure."""

    def run(self) -> None:
        package_dir = Path(self.get_ext_fullpath("bohnanza_core.engine")).parent
        if REFUSAL is not None:
            self.fall_back(package_dir, REFUSAL)
            return
        for old in build_info.compiled_files(package_dir):  # a module no longer compiled
            old.unlink()  # must not shadow its source
        try:
            super().run()
        except Exception as error:  # a compiler or linker failure of any kind
            self.fall_back(package_dir, f"the C build failed ({error})".replace("\n", " "))
            return
        build_info.write_record(package_dir, ROOT / "bohnanza_core", None)
        say(f"compiled with mypyc: {len(build_info.COMPILED)} modules of bohnanza_core")

    def fall_back(self, package_dir: Path, reason: str) -> None:
        for stale in build_info.compiled_files(package_dir):
            stale.unlink()
        build_info.write_record(package_dir, ROOT / "bohnanza_core", reason)
        say(f"installing the pure Python package: {reason}")


class AlwaysBuildExt(Distribution):
    """build_ext runs even with no extension, so that a pure install writes its record
    and removes the extensions of an earlier build."""

    def has_ext_modules(self) -> bool:
        return True


if os.environ.get("BOHNANZA_BUILD_PURE") == "1":
    EXTENSIONS, REFUSAL = [], "BOHNANZA_BUILD_PURE=1 at install"
else:
    EXTENSIONS, REFUSAL = mypyc_extensions()

setup(ext_modules=EXTENSIONS, cmdclass={"build_ext": BuildExt}, distclass=AlwaysBuildExt)

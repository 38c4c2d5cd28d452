# SPDX-License-Identifier: Apache-2.0
"""The package's conventions: typed (py.typed and the extension's interface file _ext.pyi, kept in
step with the extension), one version string, the wheel's contents."""
import importlib.metadata
import pathlib
import subprocess
import sys

import poolgrad

PKG = pathlib.Path(poolgrad.__file__).parent


def test_typed_and_interface_file_matches_the_extension(tmp_path):
    assert (PKG / "py.typed").exists()
    out = tmp_path / "_ext.pyi"
    # nanobind's generator of .pyi interface files (the extension's signatures, for type checkers)
    subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-m", "poolgrad._ext", "-o", str(out), "-q"],
                   check=True)
    # (The kept file carries the licence's SPDX line on top of what the generator writes.)
    kept = (PKG / "_ext.pyi").read_text().removeprefix("# SPDX-License-Identifier: Apache-2.0\n")
    assert out.read_text() == kept, "regenerate python/poolgrad/_ext.pyi (and keep its SPDX line)"


def test_one_version():
    assert poolgrad.__version__ == importlib.metadata.version("poolgrad")


def test_installed_package_has_one_library_and_no_sources():
    files = sorted(p.name for p in PKG.iterdir())
    assert not [f for f in files if f.endswith((".cpp", ".h"))], files
    assert [f for f in files if f.startswith("libpoolgrad")] == ["libpoolgrad.so"], files


def test_licence_metadata_is_apache_2():
    meta = importlib.metadata.metadata("poolgrad")
    assert "License :: OSI Approved :: Apache Software License" in meta.get_all("Classifier")
    text = meta.get("License") or meta.get("License-Expression") or ""
    files = meta.get_all("License-File") or []
    assert "Apache License" in text or "Apache-2.0" in text or "LICENSE" in files, (text, files)


def test_changelog_names_the_version():
    # The newest entry of CHANGELOG.md is the version the library, the wheel and the CLI report.
    changelog = pathlib.Path(__file__).resolve().parents[2] / "CHANGELOG.md"
    if not changelog.exists():  # an installed copy of the tests without the repository
        import pytest
        pytest.skip("CHANGELOG.md is not beside these tests")
    newest = next(line for line in changelog.read_text().splitlines() if line.startswith("## ["))
    assert newest.split("[", 1)[1].split("]", 1)[0] == poolgrad.__version__, newest


def test_public_functions_are_annotated_and_documented():
    # Every public function of poolgrad and poolgrad.torch: every parameter and the return value
    # annotated, and a docstring that gives an example (the operators' also say what they raise).
    import inspect

    import poolgrad.torch as pgt
    funcs = [getattr(poolgrad, n) for n in poolgrad.__all__ if inspect.isfunction(getattr(poolgrad, n))]
    funcs += [pgt.max_pool2d, pgt.max_pool3d, pgt.adaptive_max_pool2d, pgt.adaptive_max_pool3d,
              pgt.roi_pool, pgt.max_unpool2d, pgt.max_unpool3d, pgt.convert, pgt.roi_align, pgt.use_for_torchvision]
    assert len(funcs) >= 20
    for f in funcs:
        sig = inspect.signature(f)
        missing = [p for p in sig.parameters.values() if p.annotation is inspect.Parameter.empty]
        assert not missing and sig.return_annotation is not inspect.Signature.empty, (f.__name__, missing)
        doc = f.__doc__ or ""
        if f.__module__ == "poolgrad" and f.__name__.endswith(("_indices", "_backward", "_mask", "_argmax",
                                                                "pool2d", "pool3d")):
            assert "Example" in doc and "Raises PoolgradError" in doc, f.__name__
        else:
            assert doc.strip(), f.__name__
    for f in funcs[-10:]:
        assert "Example" in f.__doc__, f.__name__

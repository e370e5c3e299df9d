"""index.html opened in headless Chromium: the verdict renders, the filters work, injected script stays inert."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from porting.report import build_report, write_artifacts

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium package is not installed (ci/setup)")

INJECTED = ("<script>document.body.setAttribute('data-pwned','1')</script>"
            "<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">")


def _dump_dom(page, profile) -> str:
    return _dump_dom_url(page.as_uri(), profile)


def test_chromium_renders_verdict_and_keeps_injected_script_inert(tmp_path, jx):
    cpu = tmp_path / "cpu.xml"
    cpu.write_text(jx.xml(jx.CPU, [("t.a::x", "passed"), ("t.a::y", "passed")], run_id="c"))
    rocm = tmp_path / "rocm.xml"
    rocm.write_text(jx.xml(jx.ROCM, [("t.a::x", "failed", INJECTED), ("t.a::y", "passed")], run_id="r"))
    paths = write_artifacts(build_report([str(cpu), str(rocm)]), tmp_path / "out")
    dom = _dump_dom(paths["index.html"], tmp_path / "profile")
    assert 'id="verdict"' in dom and "ROCm parity: NOT CERTIFIED" in dom
    assert 'data-ready="1"' in dom  # our script ran (so the page's filters are live)...
    assert "data-pwned" not in dom.split("<body", 1)[1].split(">", 1)[0]  # ...the injected ones did not
    assert dom.count("<script") == 1 and "<img" not in dom
    assert "&lt;script&gt;document.body.setAttribute('data-pwned','1')&lt;/script&gt;" in dom
    assert '<span id="shown">2</span>' in dom


def test_chromium_renders_certified_page(tmp_path, jx):
    cases = [("t.a::x", "passed")]
    cpu = tmp_path / "cpu.xml"
    cpu.write_text(jx.xml(jx.CPU, cases, run_id="c"))
    rocm = tmp_path / "rocm.xml"
    rocm.write_text(jx.xml(jx.ROCM, cases, run_id="r"))
    paths = write_artifacts(build_report([str(cpu), str(rocm)]), tmp_path / "out")
    dom = _dump_dom(paths["index.html"], tmp_path / "profile")
    assert 'class="v-certified">ROCm parity: CERTIFIED' in dom


def test_chromium_filters_from_the_url(tmp_path, jx):
    cpu = tmp_path / "cpu.xml"
    cpu.write_text(jx.xml(jx.CPU, [("t.a::x", "passed"), ("t.a::y", "passed"), ("t.b::z", "passed", "", 0.1, "bee")],
                          run_id="c"))
    rocm = tmp_path / "rocm.xml"
    rocm.write_text(jx.xml(jx.ROCM, [("t.a::x", "failed"), ("t.a::y", "passed"), ("t.b::z", "error", "", 0.1, "bee")],
                           run_id="r"))
    page = write_artifacts(build_report([str(cpu), str(rocm)]), tmp_path / "out")["index.html"]

    def shown(fragment: str) -> str:
        dom = _dump_dom_url(page.as_uri() + fragment, tmp_path / "profile")
        return dom.split('<span id="shown">', 1)[1].split("<", 1)[0]

    assert shown("") == "3"
    assert shown("#status=failed") == "1"
    assert shown("#status=!passed") == "2"
    assert shown("#status=!passed&component=bee") == "1"
    assert shown("#status=passed&platform=1") == "3"  # column 1 is cpu, where all pass
    assert shown("#status=passed&platform=0") == "1"  # column 0 is ROCm


def _dump_dom_url(url, profile) -> str:
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--no-first-run", "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
         "--dump-dom", url],
        capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout

"""Fixtures for running the matrix plugin in a separate pytest process on a tiny project."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

PYTEST_INI = "[pytest]\naddopts = -p no:cacheprovider\n"


@dataclass
class Run:
    returncode: int
    output: str
    junit: Path

    def suite_properties(self) -> dict[str, str]:
        root = ET.parse(self.junit).getroot()
        suite = root if root.tag == "testsuite" else root.find("testsuite")
        return {p.get("name"): p.get("value") for p in suite.iter("property")
                if p.get("name", "").startswith("port.")}

    def cases(self) -> dict[str, ET.Element]:
        root = ET.parse(self.junit).getroot()
        return {f"{c.get('classname')}::{c.get('name')}": c for c in root.iter("testcase")}


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "pytest.ini").write_text(PYTEST_INI)
        (root / "test_matrix").mkdir()

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PORT_MATRIX", "PYTEST_XDIST"))}
        env.pop("PYTEST_CURRENT_TEST", None)
        env.update(extra)
        return env

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "pytest", *args, f"--junitxml={self.root / 'junit.xml'}"]

    def result(self, returncode: int, output: str) -> Run:
        return Run(returncode, output, self.root / "junit.xml")

    def run(self, *args: str, **env: str) -> Run:
        proc = subprocess.run(self.command(*args), cwd=self.root, env=self.env(**env), capture_output=True,
                              text=True, timeout=600)
        return Run(proc.returncode, proc.stdout + proc.stderr, self.root / "junit.xml")


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)

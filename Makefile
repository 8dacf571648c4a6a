# Two commands for a newcomer: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SAMPLE := samples/the-last-broadcast.radioplay

.PHONY: run test lint bench gpu-check fuzz clean package package-test release-check

# --no-compile: pip compiled every module of every package it installed (torch, sympy,
# scipy: 28 of a 70 s install); Python compiles what is imported, once, on first import.
$(VENV)/.installed-test: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install --no-compile -e '.[test]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install --no-compile -e .
	touch $@

# Opens the studio window on the bundled sample (File > Export renders it;
# `radioplay render` does the same headless).
run: $(VENV)/.installed
	$(VENV)/bin/radioplay studio $(SAMPLE)

# The suite runs on three workers (pytest-xdist; `--dist loadfile` keeps a module's tests,
# and so its module-scoped fixtures, on one worker; docs/dev/testing.md says what a test
# needs to run beside another). Three on two cores: about a sixth of the suite waits on
# real time (audio played at its speed, Ray starting), which the third worker fills.
# PYTEST_ARGS adds to pytest's: `make test PYTEST_ARGS="-n 0"` runs it serially,
# `PYTEST_ARGS="tests/engine/audio"` one folder.
# `--no-loadscope-reorder` keeps the longest files first (tests/support/ordering.py says why).
# PYTHONDONTWRITEBYTECODE is emptied for the run: where a shell sets it, every process the
# suite starts compiled the project's modules from source again and pytest rewrote every
# test module's asserts again (the collection alone: 20 s -> 9 s per worker).
# Lint, types and contracts (about 40 s) run beside the suite, their report printed after
# it. `make test` fails if either fails.
PYTEST_ARGS ?=
test: $(VENV)/.installed-test
	@lint_log=$$(mktemp); \
	$(MAKE) --no-print-directory lint > $$lint_log 2>&1 & lint=$$!; \
	PYTHONDONTWRITEBYTECODE= QT_QPA_PLATFORM=offscreen $(PY) -m pytest -n 3 --dist loadfile --no-loadscope-reorder \
		--durations=15 $(PYTEST_ARGS); tests=$$?; \
	wait $$lint; linted=$$?; cat $$lint_log; rm -f $$lint_log; \
	if [ $$linted -ne 0 ]; then echo "make test: lint, types or import contracts failed (above)"; fi; \
	[ $$tests -eq 0 ] && [ $$linted -eq 0 ]

# The engine stays Qt-free (import-linter), engine and studio lint-clean (ruff) and strictly
# typed (mypy over pyproject's [tool.mypy] files: engine/ and app/).
lint: $(VENV)/.installed-test
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check engine app tests bench
	$(VENV)/bin/mypy

bench: $(VENV)/.installed-test
	$(PY) bench/render.py

# The prepared GPU check (bench/device_check.py, docs/dev/devices.md): every device test on the
# GPU, then render and serve there against the CPU provider and the device's raw ceiling, as
# JSON ($$OUT/gpu-check.json when OUT is set). Without a GPU it runs the same on the CPU.
# DEVICE=cuda:1 picks another card; LINES=N voices more or fewer of the sample's lines.
gpu-check: $(VENV)/.installed-test
	$(PY) bench/device_check.py --device $(or $(DEVICE),auto) --lines $(or $(LINES),16)

# The long fuzzing profile: tens of thousands of hostile inputs each for the project
# loader, both script importers and the text frontend (tests/contracts/test_fuzz_inputs.py),
# plus the linear-time checks. Minutes, not seconds; `make test` runs a few hundred.
fuzz: $(VENV)/.installed-test
	HYPOTHESIS_PROFILE=long $(PY) -m pytest -p no:cacheprovider --hypothesis-show-statistics \
		tests/contracts/test_fuzz_inputs.py tests/contracts/test_linear_time.py

clean:
	rm -rf $(VENV) out build dist *.egg-info

# The desktop build (packaging/README.md): a self-contained folder under dist/radioplay
# that runs without Python, made by PyInstaller (pinned in packaging/requirements.txt).
# PyInstaller refuses to run while the obsolete `typing` backport is installed (Resemblyzer,
# a test dependency, pulls it in); Python 3 never imports it (the standard library's comes first).
$(VENV)/.installed-package: $(VENV)/.installed packaging/requirements.txt
	$(PY) -m pip install -r packaging/requirements.txt
	$(PY) -m pip uninstall -y -q typing 2>/dev/null || true
	touch $@

package: $(VENV)/.installed-package
	$(PY) packaging/build.py

# Runs the bundle headless with no Python on PATH: studio, render, import, install.sh.
package-test:
	packaging/smoke_test.sh dist/radioplay

# The release gate (docs/dev/release.md): the bundle built from this tree and run
# headless; a change that breaks the desktop build fails here, before a release.
# Minutes: about 2-3 on an idle 2-core machine, 15-30 with the machine shared.
release-check:
	$(MAKE) --no-print-directory package
	$(MAKE) --no-print-directory package-test

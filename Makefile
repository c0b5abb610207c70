# The two commands of the README: `make demo` and `make test`. Each installs
# what is missing, then builds.
PYTHON ?= python3
BUILD ?= build
LIT ?= /usr/lib/llvm-22/bin/lit

.PHONY: deps build test torch-venv test-torch compat demo fuzz clean

deps:
	@PYTHON=$(PYTHON) ./scripts/install-deps.sh

# Configures once, rebuilds incrementally, then (scripts/install-tools.py)
# makes `import rocktile` load this checkout from any directory and installs
# the README's commands beside the Python interpreter, saying where.
# gcc and g++ by those names, as `pip install .` compiles (Python's sysconfig
# names them so), because ccache's keys include the compiler's name: so the
# two builds share ccache's entries.
build: deps
	@test -f $(BUILD)/build.ninja || cmake -G Ninja -S . -B $(BUILD) -DPython3_EXECUTABLE=$$(command -v $(PYTHON)) \
	  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++
	@cmake --build $(BUILD)
	@$(PYTHON) scripts/install-tools.py $(BUILD)

# pytest runs on every core (pytest-xdist; PYTEST_JOBS=0 runs it in one process).
PYTEST_JOBS ?= auto
test: build
	$(LIT) -sv $(BUILD)/test
	$(PYTHON) -m pytest -q -n $(PYTEST_JOBS) test/python
	cd $(BUILD) && ctest --output-on-failure

# torch tensors as arguments (test/python/test_torch.py) with the real torch
# package: PyPI's wheel (about 5 GB with its CUDA libraries, which it loads
# even on the CPU) in a virtualenv of its own that sees the interpreter's
# packages, so `make test` stays lean. CI runs it, and `make compat`.
TORCH_VENV ?= $(BUILD)/venv-torch
torch-venv:
	@test -x $(TORCH_VENV)/bin/python || $(PYTHON) -m venv --system-site-packages $(TORCH_VENV)
	@$(TORCH_VENV)/bin/python -c "import torch" 2>/dev/null || \
	  $(TORCH_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-torch.txt

test-torch: build torch-venv
	$(TORCH_VENV)/bin/python -m pytest -q test/python/test_torch.py

# Published Triton kernel libraries, unchanged, on rocktile (test/compat):
# installed beside the torch virtualenv, run on both chips in the emulator
# against torch references; prints the table and writes $(BUILD)/compat.json.
# Triton 3.9 goes into a directory of its own, for its interpreter's column.
COMPAT_PACKAGES ?= $(BUILD)/compat-packages
COMPAT_TRITON ?= $(BUILD)/compat-triton
compat: build torch-venv
	@cmp -s test/compat/requirements.txt $(COMPAT_PACKAGES)/requirements.txt || { rm -rf $(COMPAT_PACKAGES) && \
	  $(TORCH_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
	    --target $(COMPAT_PACKAGES) -r test/compat/requirements.txt && \
	  cp test/compat/requirements.txt $(COMPAT_PACKAGES)/requirements.txt; }
	@test -d $(COMPAT_TRITON)/triton || $(TORCH_VENV)/bin/python -m pip install --quiet \
	  --disable-pip-version-check --no-deps --target $(COMPAT_TRITON) triton==3.9.0
	PYTHONPATH=$(COMPAT_PACKAGES) $(TORCH_VENV)/bin/python test/compat/run.py --json $(BUILD)/compat.json \
	  --interpreter $(COMPAT_TRITON)

demo: build
	$(PYTHON) examples/demo.py

# A longer fuzz run (test/fuzz): random kernels vs numpy, broken kernels and
# malformed MLIR.  It uses the existing build and does not rebuild.
# FUZZ_CASES cases of each kind from seed FUZZ_SEED.
FUZZ_CASES ?= 2000
FUZZ_SEED ?= 1
fuzz:
	$(PYTHON) test/fuzz --cases $(FUZZ_CASES) --seed $(FUZZ_SEED)

clean:
	rm -rf $(BUILD)

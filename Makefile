# The two commands of the README: `make demo` and `make test`. Each installs
# what is missing, then builds.
PYTHON ?= python3
BUILD ?= build
LIT ?= /usr/lib/llvm-22/bin/lit

.PHONY: deps build test test-torch demo fuzz clean

deps:
	@PYTHON=$(PYTHON) ./scripts/install-deps.sh

# Configures once, rebuilds incrementally, makes `import rocktile` work from
# any directory by pointing a .pth file at python/, and installs the
# rocktile-compile command beside the Python interpreter.
build: deps
	@test -f $(BUILD)/build.ninja || cmake -G Ninja -S . -B $(BUILD) -DPython3_EXECUTABLE=$$(command -v $(PYTHON))
	@cmake --build $(BUILD)
	@$(PYTHON) -c "import site, os; open(os.path.join(site.getsitepackages()[0], 'rocktile.pth'), 'w').write(os.path.abspath('python') + '\n')"
	@$(PYTHON) scripts/install-tools.py

test: build
	$(LIT) -sv $(BUILD)/test
	$(PYTHON) -m pytest -q test/python
	cd $(BUILD) && ctest --output-on-failure

# torch tensors as arguments (test/python/test_torch.py) with the real torch
# package: PyPI's wheel (about 5 GB with its CUDA libraries, which it loads
# even on the CPU) in a virtualenv of its own that sees the interpreter's
# packages, so `make test` stays lean. CI runs both.
TORCH_VENV ?= $(BUILD)/venv-torch
test-torch: build
	@test -x $(TORCH_VENV)/bin/python || $(PYTHON) -m venv --system-site-packages $(TORCH_VENV)
	@$(TORCH_VENV)/bin/python -c "import torch" 2>/dev/null || \
	  $(TORCH_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-torch.txt
	$(TORCH_VENV)/bin/python -m pytest -q test/python/test_torch.py

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

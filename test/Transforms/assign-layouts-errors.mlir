// RUN: rocktile-opt %s -split-input-file --tile-assign-layouts="target=gfx950 num-warps=4" -verify-diagnostics

// expected-error @+1 {{kernels with unstructured control flow (cf branches) are not supported; use scf ops}}
func.func @branches(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  return
}

// -----

// expected-error @+1 {{kernel arguments must be scalars or pointers, got 'tensor<4xf32>'}}
func.func @tensor_arg(%x: tensor<4xf32>) {
  return
}

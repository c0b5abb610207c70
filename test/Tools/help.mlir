// rocktile-opt lists rocktile's passes and pipelines beside upstream's.
// RUN: rocktile-opt --help | FileCheck %s
// CHECK-DAG: --tile-allocate-lds
// CHECK-DAG: --tile-assign-layouts
// CHECK-DAG: --tile-convert-simt-to-llvm
// CHECK-DAG: --tile-lower-to-simt
// CHECK-DAG: --rocktile-tile-pipeline
// CHECK-DAG: --rocktile-simt-pipeline
// CHECK-DAG: --rocktile-llvm-pipeline
// CHECK-DAG: --convert-scf-to-cf
// CHECK-DAG: --canonicalize

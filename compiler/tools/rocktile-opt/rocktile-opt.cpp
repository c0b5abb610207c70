// rocktile-opt: mlir-opt with the tile dialect, rocktile's passes and
// pipelines, and the upstream dialects and passes they use.
#include "rocktile/Pipeline/Pipeline.h"
#include "rocktile/Emulator/Passes.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  rocktile::registerDialects(registry);
  mlir::registerTransformsPasses();
  mlir::registerSCFToControlFlowPass();
  mlir::registerReconcileUnrealizedCastsPass();
  rocktile::registerRocktilePasses();
  rocktile::emulator::registerEmulatorPasses();
  rocktile::registerPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "rocktile optimizer driver\n", registry));
}

//===- Passes.td - Artifact passes -------------------------*- tablegen -*-===//

#ifndef LOOM_TARGET_ARTIFACT_PASSES
#define LOOM_TARGET_ARTIFACT_PASSES

include "mlir/Pass/PassBase.td"

def PrepareEntry : Pass<"loom-prepare-entry", "mlir::ModuleOp"> {
  let summary = "Give the entry the signature every target compiles";
  let description = [{
    Checks that the module has one public function, with data for every
    weight, and tensors of static shape in its signature; then moves its
    `nn.parameter` ops out of the body: one leading argument per parameter
    name, in the order the body first names them (a parameter that
    -dist-partition cut with `dist.take_shard`s becomes an argument of the
    device's block). Arguments are marked read-only for bufferization
    (`bufferization.writable = false`), parameters no training step updates
    `nn.immutable`; `dist.sharding` and `dist.spmd` leave the signature (the
    artifact's manifest records the layouts), and resource-backed constants
    become dense attributes. `entry-name` renames the function.

    ```mlir
    // before
    func.func @main(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
      %w = nn.parameter "w" = dense<...> : tensor<16x8xf32>
      %y = nn.matmul %x, %w : ...
    // after -loom-prepare-entry="entry-name=loom_program"
    func.func @loom_program(%w: tensor<16x8xf32> {bufferization.writable = false, nn.immutable},
                            %x: tensor<4x16xf32> {bufferization.writable = false})
    ```
  }];
  let options = [
    Option<"entryName", "entry-name", "std::string", /*default=*/"\"\"",
           "Rename the entry (empty: keep its name)">
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect"];
}

#endif // LOOM_TARGET_ARTIFACT_PASSES

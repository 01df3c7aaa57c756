//===- Passes.td - gnn dialect passes ----------------------*- tablegen -*-===//
//
// Passes that transform the gnn dialect in place. Declarations only; the
// implementations live in compiler/lib/Dialect/GNN/Transforms. Flags read
// `gnn-<verb>`. No pass names a `constructor`: tblgen emits
// `create<PassName>()` for each.
//
//===----------------------------------------------------------------------===//

#ifndef GNN_DIALECT_PASSES_TD
#define GNN_DIALECT_PASSES_TD

include "mlir/Pass/PassBase.td"

def InferShapes : Pass<"gnn-infer-shapes", "::mlir::func::FuncOp"> {
  let summary = "Refine dynamic result dims of gnn ops from static operand dims";
  let description = [{
    MLIRGen types every dataset-dependent dim as `?`, but many results are
    partly known from their operands: a `gnn.matmul` result has the static
    column count of its right operand, an `aggregate` keeps its input's feature
    dims, a broadcast takes the static dims of either side. This pass walks a
    function in program order and replaces each `?` in a gnn op's result type
    by the static size implied by its (already refined) operands. It never
    changes a static dim, and it leaves a value's type alone where a non-gnn
    user (for example `func.return`) requires the original type, together with
    every value tied to it by a same-type constraint.

    ```mlir
    %c = gnn.matmul %a, %b : tensor<?x16xf32>, tensor<16x7xf32> -> tensor<?x?xf32>
    // becomes
    %c = gnn.matmul %a, %b : tensor<?x16xf32>, tensor<16x7xf32> -> tensor<?x7xf32>
    ```
  }];
}

def Autodiff : Pass<"gnn-autodiff", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode differentiation: a train step for each model";
  let description = [{
    For every `@<Model>.forward(%g, %x)` creates
    `@<Model>.train_step(%g, %x, %labels, %mask) -> tensor<f32>`: the forward
    computation, the softmax cross-entropy loss over the rows selected by
    `%mask`, and the adjoint of every value that depends on a parameter, in
    reverse program order, ending in one `gnn.param_grad` per parameter read.
    Values that depend on no parameter (the input features, degrees) get no
    adjoint. Forward values the adjoints need are simply reused; memory
    planning decides how long they live. Dropout's adjoint is the same
    dropout (same `stream`) applied to the gradient, so no mask is stored.

    ```mlir
    %y = gnn.matmul %x, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
    // adjoint of %w:
    %dw = gnn.matmul %x, %dy {transpose_lhs = true} : ... -> tensor<8x4xf32>
    gnn.param_grad @M.w, %dw : tensor<8x4xf32>
    ```
  }];
}

#endif // GNN_DIALECT_PASSES_TD

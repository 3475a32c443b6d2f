// A two-layer perceptron forward pass to run on real data with ocannl-run:
//   ocannl-run examples/mlp-run.mlir --entry mlp --inputs x.npy w1.npy b1.npy w2.npy b2.npy --outputs y.npy
// (tools/tests/run/mlp_check.py does this and compares with NumPy).
//
// Shapes are OCANNL specs `batch|input->output`; a tensor's memory layout
// (its .npy shape) is batch axes, then output axes, then input axes.
// Only two things are written down:
//   - the data x: 784 pixels per image, and a batch row variable `..b..`:
//     "..b..|784". The batch comes from the data: ocannl-run binds `..b..`
//     to the leading axes of x.npy ((32, 784) gives "32|784", (4, 8, 784)
//     gives "4,8|784"), and the row variable carries it through every layer;
//   - the sizes of the two layers, on the intermediate and result types:
//     hidden "..b..|128", classes "..b..|10".
// The four parameters say only that they have no batch axes ("|...->...";
// without that, closing would give them the batch of x); all their sizes
// are inferred:
//   w1: "784->128"  (.npy shape (128, 784))
//   b1: "128"       (.npy shape (128,))
//   w2: "128->10"   (.npy shape (10, 128))
//   b2: "10"        (.npy shape (10,))
//   result: "..b..|10" with the data's batch (.npy shape (32, 10) for 32 images)
// Check with: ocannl-opt examples/mlp-run.mlir -p 'builtin.module(ocannl-infer-shapes{close=false})'
func.func @mlp(%x: !ocannl.tensor<f32, "..b..|784">,
               %w1: !ocannl.tensor<f32, "|...->...">, %b1: !ocannl.tensor<f32, "|...->...">,
               %w2: !ocannl.tensor<f32, "|...->...">, %b2: !ocannl.tensor<f32, "|...->...">)
    -> !ocannl.tensor<f32, "..b..|10"> {
  %h = "ocannl.fma"(%w1, %x, %b1) : (!ocannl.tensor<f32, "|...->...">, !ocannl.tensor<f32, "..b..|784">, !ocannl.tensor<f32, "|...->...">) -> !ocannl.tensor<f32, "..b..|128">
  %a = "ocannl.relu"(%h) : (!ocannl.tensor<f32, "..b..|128">) -> !ocannl.tensor<f32, "..b..|128">
  %y = "ocannl.fma"(%w2, %a, %b2) : (!ocannl.tensor<f32, "|...->...">, !ocannl.tensor<f32, "..b..|128">, !ocannl.tensor<f32, "|...->...">) -> !ocannl.tensor<f32, "..b..|10">
  return %y : !ocannl.tensor<f32, "..b..|10">
}

// A two-layer perceptron forward pass to run on real data with ocannl-run:
//   ocannl-run examples/mlp-run.mlir --entry mlp --inputs x.npy w1.npy b1.npy w2.npy b2.npy --outputs y.npy
// (tools/tests/run/mlp_check.py does this and compares with NumPy).
//
// Shapes are OCANNL specs `batch|input->output`; a tensor's memory layout
// (its .npy shape) is batch axes, then output axes, then input axes.
// Only two things are written down:
//   - the data x, a real batch of 32 images of 784 pixels: "32|784";
//   - the sizes of the two layers, on the intermediate and result types:
//     hidden "..b..|128", classes "..b..|10". `..b..` is a row variable: the
//     batch row is carried from x through every layer, whatever it is.
// The four parameters say only that they have no batch axes ("|...->...";
// without that, closing would give them the batch of x); all their sizes
// are inferred:
//   w1: "784->128"  (.npy shape (128, 784))
//   b1: "128"       (.npy shape (128,))
//   w2: "128->10"   (.npy shape (10, 128))
//   b2: "10"        (.npy shape (10,))
//   result: "32|10" (.npy shape (32, 10))
// Check with: ocannl-opt examples/mlp-run.mlir -p 'builtin.module(ocannl-infer-shapes)'
func.func @mlp(%x: !ocannl.tensor<f32, "32|784">,
               %w1: !ocannl.tensor<f32, "|...->...">, %b1: !ocannl.tensor<f32, "|...->...">,
               %w2: !ocannl.tensor<f32, "|...->...">, %b2: !ocannl.tensor<f32, "|...->...">)
    -> !ocannl.tensor<f32, "..b..|10"> {
  %h = "ocannl.fma"(%w1, %x, %b1) : (!ocannl.tensor<f32, "|...->...">, !ocannl.tensor<f32, "32|784">, !ocannl.tensor<f32, "|...->...">) -> !ocannl.tensor<f32, "..b..|128">
  %a = "ocannl.relu"(%h) : (!ocannl.tensor<f32, "..b..|128">) -> !ocannl.tensor<f32, "..b..|128">
  %y = "ocannl.fma"(%w2, %a, %b2) : (!ocannl.tensor<f32, "|...->...">, !ocannl.tensor<f32, "..b..|128">, !ocannl.tensor<f32, "|...->...">) -> !ocannl.tensor<f32, "..b..|10">
  return %y : !ocannl.tensor<f32, "..b..|10">
}

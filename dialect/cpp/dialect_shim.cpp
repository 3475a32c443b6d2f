//===- dialect_shim.cpp - C entry points the MLIR C API lacks -------------===//
//
// The ocannl dialect is loaded from IRDL, so its tensor type is an
// `mlir::DynamicType`. The MLIR C API has no access to dynamic types and no
// way to attach notes to a diagnostic; these few functions provide both.
// Every function is total: a wrong input gives a null/false result, never UB.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/ExtensibleDialect.h"
#include "mlir/IR/MLIRContext.h"

namespace {
/// The `!ocannl.tensor` dynamic type, or a null type.
mlir::DynamicType asOcannlTensor(mlir::Type type) {
  auto dyn = llvm::dyn_cast_or_null<mlir::DynamicType>(type);
  if (!dyn)
    return {};
  mlir::DynamicTypeDefinition *def = dyn.getTypeDef();
  if (def->getName() != "tensor" || def->getDialect()->getNamespace() != "ocannl")
    return {};
  if (dyn.getParams().size() != 2)
    return {};
  return dyn;
}
} // namespace

extern "C" {

bool ocannlTypeIsTensor(MlirType type) {
  return static_cast<bool>(asOcannlTensor(unwrap(type)));
}

/// The spec string of an `!ocannl.tensor` type; an empty reference with a
/// null data pointer when `type` is not one (or its spec is not a string).
MlirStringRef ocannlTensorTypeGetSpec(MlirType type) {
  auto dyn = asOcannlTensor(unwrap(type));
  if (!dyn)
    return MlirStringRef{nullptr, 0};
  auto spec = llvm::dyn_cast<mlir::StringAttr>(dyn.getParams()[1]);
  if (!spec)
    return MlirStringRef{nullptr, 0};
  return wrap(spec.getValue());
}

/// The element type of an `!ocannl.tensor` type; a null type otherwise.
MlirType ocannlTensorTypeGetElementType(MlirType type) {
  auto dyn = asOcannlTensor(unwrap(type));
  if (!dyn)
    return MlirType{nullptr};
  auto elem = llvm::dyn_cast<mlir::TypeAttr>(dyn.getParams()[0]);
  if (!elem)
    return MlirType{nullptr};
  return wrap(elem.getValue());
}

/// `!ocannl.tensor<elem, "spec">`; a null type when the ocannl dialect is
/// not loaded in `ctx`.
MlirType ocannlTensorTypeGet(MlirContext ctx, MlirType elem, MlirStringRef spec) {
  mlir::MLIRContext *context = unwrap(ctx);
  auto *dialect = llvm::dyn_cast_or_null<mlir::ExtensibleDialect>(
      context->getLoadedDialect("ocannl"));
  if (!dialect)
    return MlirType{nullptr};
  mlir::DynamicTypeDefinition *def = dialect->lookupTypeDefinition("tensor");
  if (!def)
    return MlirType{nullptr};
  mlir::Attribute params[] = {mlir::TypeAttr::get(unwrap(elem)),
                              mlir::StringAttr::get(context, unwrap(spec))};
  return wrap(mlir::DynamicType::get(def, params));
}

/// Emits an error at `loc` with one note per (`noteLocs[i]`, `noteMsgs[i]`),
/// the way MLIR reports conflicts between ops.
void ocannlEmitErrorWithNotes(MlirLocation loc, MlirStringRef message, intptr_t numNotes,
                              const MlirLocation *noteLocs, const MlirStringRef *noteMsgs) {
  mlir::InFlightDiagnostic diag = mlir::emitError(unwrap(loc)) << unwrap(message);
  for (intptr_t i = 0; i < numNotes; ++i)
    diag.attachNote(unwrap(noteLocs[i])) << unwrap(noteMsgs[i]);
}

} // extern "C"

//===- dialect_shim.cpp - C entry points the MLIR C API lacks -------------===//
//
// The ocannl dialect is loaded from IRDL, so its tensor type is an
// `mlir::DynamicType`. The MLIR C API has no access to dynamic types and no
// way to attach notes to a diagnostic; these few functions provide both,
// and the registration of the dialect in a `DialectRegistry` (what
// `mlir-opt --load-dialect-plugin` and C++ compilers use).
// Every function is total: a wrong input gives a null/false result, never UB.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/IRDL/IR/IRDL.h"
#include "mlir/Dialect/IRDL/IRDLLoading.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/ExtensibleDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/Operation.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

#include <mutex>
#include <string>
#include <vector>

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

/// An ocannl tensor or a builtin (ranked or unranked) tensor.
bool isTensorKind(mlir::Type type) {
  return asOcannlTensor(type) || llvm::isa<mlir::TensorType>(type);
}

/// Prints the parameters of `!ocannl.tensor` exactly as IRDL's printer
/// does (`<`, the parameters as attributes separated by `, `, `>`), with a
/// shortcut for the spec string: without a character to escape it is
/// written in one piece, not character by character
/// (`llvm::printEscapedString`, about 1,000 instructions for a 13-character
/// spec: printing these types was a tenth of `ocannl-opt`'s whole run on a
/// decoder stack). Anything else (another arity, a typed string, a
/// character to escape) goes through IRDL's way; a lit test
/// (`Dialect/type-printing.mlir`) compares both with stock `mlir-opt`.
void printTensorParams(mlir::AsmPrinter &printer, llvm::ArrayRef<mlir::Attribute> params) {
  mlir::StringAttr spec =
      params.size() == 2 ? llvm::dyn_cast<mlir::StringAttr>(params[1]) : mlir::StringAttr();
  bool plain = spec && llvm::isa<mlir::NoneType>(spec.getType()) &&
               llvm::all_of(spec.getValue(), [](char c) {
                 // What `llvm::printEscapedString` writes as it is.
                 return llvm::isPrint(c) && c != '"' && c != '\\';
               });
  if (!plain) {
    printer << "<" << params << ">";
    return;
  }
  printer << "<";
  printer.printAttribute(params[0]);
  printer.getStream() << ", \"" << spec.getValue() << "\">";
}

/// Access to the definition behind a registered op name (`getImpl` is
/// protected in `OperationName`).
struct OpNameAccess : mlir::OperationName {
  explicit OpNameAccess(mlir::OperationName name) : mlir::OperationName(name) {}
  Impl *impl() const { return getImpl(); }
};

/// The definition of the op `name` of the IRDL-loaded ocannl dialect, or
/// null when that dialect is not loaded or has no such op. Every op of an
/// IRDL-loaded (extensible) dialect is a dynamic op.
mlir::DynamicOpDefinition *dynamicOcannlOp(MlirContext ctx, MlirStringRef name) {
  mlir::MLIRContext *context = unwrap(ctx);
  if (!llvm::isa_and_nonnull<mlir::ExtensibleDialect>(context->getLoadedDialect("ocannl")))
    return nullptr;
  mlir::OperationName opName(unwrap(name), context);
  if (!opName.isRegistered() || opName.getDialectNamespace() != "ocannl")
    return nullptr;
  return static_cast<mlir::DynamicOpDefinition *>(OpNameAccess(opName).impl());
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

/// Replaces the IRDL verifier of the variadic op `name` (e.g.
/// `ocannl.concat`) of the IRDL-loaded ocannl dialect. IRDL binds a
/// constraint variable to the first type it matches, so a variadic group
/// would need all its operands to have one type, while the operands of a
/// concatenation differ in shape. The replacement checks what the IRDL
/// verifier checks, per operand: at least `minOperands` operands and one
/// result, each an ocannl or builtin tensor, and the string attributes
/// `stringAttrs`. Returns false when the op is not a dynamic op of the
/// loaded ocannl dialect.
bool ocannlRelaxVariadicVerifier(MlirContext ctx, MlirStringRef name, intptr_t minOperands,
                                 intptr_t numStringAttrs, const MlirStringRef *stringAttrs) {
  mlir::DynamicOpDefinition *def = dynamicOcannlOp(ctx, name);
  if (!def)
    return false;
  std::vector<std::string> attrs;
  for (intptr_t i = 0; i < numStringAttrs; ++i)
    attrs.emplace_back(unwrap(stringAttrs[i]).str());
  unsigned min = static_cast<unsigned>(minOperands);
  // Types and attributes unquoted, as `ocannl-verify` prints them.
  auto text = [](auto value) {
    std::string out;
    llvm::raw_string_ostream os(out);
    os << value;
    return out;
  };
  def->setVerifyFn([attrs, min, text](mlir::Operation *op) -> mlir::LogicalResult {
    unsigned n = op->getNumOperands();
    if (n < min)
      return op->emitOpError() << "expects at least " << min << (min == 1 ? " operand" : " operands")
                               << ", got " << n;
    for (unsigned i = 0; i < n; ++i) {
      mlir::Type type = op->getOperand(i).getType();
      if (!isTensorKind(type))
        return op->emitOpError() << "operand #" << i << " must be an ocannl or builtin tensor, got "
                                 << text(type);
    }
    if (op->getNumResults() != 1)
      return op->emitOpError() << "expects 1 result, got " << op->getNumResults();
    mlir::Type result = op->getResult(0).getType();
    if (!isTensorKind(result))
      return op->emitOpError() << "result #0 must be an ocannl or builtin tensor, got "
                               << text(result);
    for (const std::string &attr : attrs) {
      mlir::Attribute value = op->getAttr(attr);
      if (!value)
        return op->emitOpError() << "attribute \"" << attr << "\" is expected but not provided";
      if (!llvm::isa<mlir::StringAttr>(value))
        return op->emitOpError() << "attribute \"" << attr << "\" must be a string, got "
                                 << text(value);
    }
    return mlir::success();
  });
  return true;
}

/// Gives the op `name` of the IRDL-loaded ocannl dialect a custom-syntax
/// parser that reports an error at the op: IRDL defines no custom
/// assembly, and its default parser fails without a diagnostic, so a typo
/// such as `ocannl.neg"(...)` made the tool exit 1 silently. Returns false
/// when the op is not a dynamic op of the loaded ocannl dialect.
bool ocannlRejectCustomSyntax(MlirContext ctx, MlirStringRef name) {
  mlir::DynamicOpDefinition *def = dynamicOcannlOp(ctx, name);
  if (!def)
    return false;
  std::string op = unwrap(name).str();
  def->setParseFn([op](mlir::OpAsmParser &parser, mlir::OperationState &) -> mlir::ParseResult {
    // MLIR prefixes "custom op 'NAME' ".
    return parser.emitError(parser.getNameLoc())
           << "has no custom assembly syntax: write it in the generic form, \"" << op
           << "\"(operands) {attributes} : (operand types) -> result type";
  });
  return true;
}

/// Called once the ocannl dialect's IRDL is loaded into a context (Rust:
/// patches what IRDL cannot express, `ocannl_dialect::relax_variadic_verifiers`).
typedef void (*OcannlDialectLoadedFn)(MlirContext ctx);

} // extern "C"

namespace {

/// The ocannl dialects this registration created and has not defined yet.
/// A dialect named `ocannl` can also be created by an IRDL file (`mlir-opt
/// --irdl-file=ocannl.irdl.mlir`): that file then defines the ops, and
/// defining them a second time would crash MLIR.
std::mutex pendingMutex;
llvm::SmallPtrSet<mlir::Dialect *, 2> &pendingDialects() {
  static llvm::SmallPtrSet<mlir::Dialect *, 2> pending;
  return pending;
}

/// Loads the ocannl dialect's ops and types from its IRDL text right after
/// the registry has created the (empty) dynamic dialect `ocannl` in a
/// context. A registry extension and not the dynamic dialect's population
/// function: IRDL's loader looks the dialect up in the context, where it is
/// only stored once its constructor has returned (looking it up from inside
/// the constructor finds a null entry); extensions run after that.
class IrdlDialectExtension : public mlir::DialectExtensionBase {
public:
  IrdlDialectExtension(llvm::StringRef irdl, OcannlDialectLoadedFn loaded)
      : mlir::DialectExtensionBase(names()), irdl(irdl), loaded(loaded) {}

  void apply(mlir::MLIRContext *ctx, llvm::MutableArrayRef<mlir::Dialect *> dialects) const override {
    auto *dialect = llvm::dyn_cast<mlir::ExtensibleDialect>(dialects.front());
    {
      std::lock_guard<std::mutex> lock(pendingMutex);
      // Not created by this registration (an IRDL file defines it), or
      // defined already (a second copy of this extension): defining the ops
      // twice would corrupt the context.
      if (!pendingDialects().erase(dialects.front()))
        return;
    }
    if (!dialect)
      return;
    ctx->getOrLoadDialect<mlir::irdl::IRDLDialect>();
    mlir::ParserConfig config(ctx);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(irdl, config, "ocannl.irdl.mlir");
    if (!module || mlir::failed(mlir::irdl::loadDialects(*module))) {
      // The generated IRDL is tested (dialect crate); this is an internal
      // error, reported where MLIR reports errors.
      mlir::emitError(mlir::UnknownLoc::get(ctx))
          << "internal error: the ocannl dialect's IRDL definition failed to load";
      return;
    }
    if (mlir::DynamicTypeDefinition *tensor = dialect->lookupTypeDefinition("tensor"))
      tensor->setPrintFn(printTensorParams);
    if (loaded)
      loaded(wrap(ctx));
  }

  std::unique_ptr<mlir::DialectExtensionBase> clone() const override {
    return std::make_unique<IrdlDialectExtension>(*this);
  }

private:
  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef ocannl[] = {"ocannl"};
    return ocannl;
  }
  llvm::StringRef irdl;
  OcannlDialectLoadedFn loaded;
};

} // namespace

namespace ocannl_mlir {
/// The extension's identity in registries: registering twice is a no-op.
/// A named namespace: the TypeID comes from the type's name (MLIR's
/// fallback resolver), so two copies of this library agree on it.
struct IrdlDialectExtensionTag {};
} // namespace ocannl_mlir

extern "C" {

/// Registers the ocannl dialect in `registry`: a dynamic dialect whose ops
/// and types come from `irdl` (which must outlive every context the
/// registry is appended to) when a context first loads it, after which
/// `loaded` patches it. Registering twice (a plugin loaded twice) is a
/// no-op.
void ocannlRegisterDialect(MlirDialectRegistry registry, MlirStringRef irdl,
                           OcannlDialectLoadedFn loaded) {
  mlir::DialectRegistry &r = *unwrap(registry);
  r.insertDynamic("ocannl", [](mlir::MLIRContext *, mlir::DynamicDialect *dialect) {
    std::lock_guard<std::mutex> lock(pendingMutex);
    pendingDialects().insert(dialect);
  });
  r.addExtension(mlir::TypeID::get<ocannl_mlir::IrdlDialectExtensionTag>(),
                 std::make_unique<IrdlDialectExtension>(unwrap(irdl), loaded));
}

} // extern "C"

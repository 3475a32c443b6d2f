/* The C API (ocannl-c/Ocannl.h) from C: a context with the ocannl dialect
 * from its handle, a program parsed, ocannl-to-affine built from the
 * mlirCreateOcannl* passes, the result printed. Built and run by check.sh
 * against the installed package. Usage: capi_smoke FILE.mlir */
#include <stdio.h>
#include <stdlib.h>

#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "ocannl-c/Ocannl.h"

static void print(MlirStringRef s, void *data) { fwrite(s.data, 1, s.length, (FILE *)data); }

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(text); return NULL; }
  text[n] = 0;
  fclose(f);
  return text;
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: capi_smoke FILE.mlir\n"); return 1; }
  char *text = slurp(argv[1]);
  if (!text) { fprintf(stderr, "capi_smoke: cannot read %s\n", argv[1]); return 1; }
  MlirContext ctx = mlirContextCreate();
  MlirDialectHandle ocannl = mlirGetDialectHandle__ocannl__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(ocannl);
  MlirDialect dialect = mlirDialectHandleLoadDialect(ocannl, ctx);
  if (mlirDialectIsNull(dialect)) { fprintf(stderr, "capi_smoke: the dialect did not load\n"); return 1; }
  fprintf(stderr, "capi_smoke: loaded dialect '%.*s'\n", (int)ns.length, ns.data);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__func__(), ctx);
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(module)) return 1;
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, mlirCreateOcannlVerify());
  mlirPassManagerAddOwnedPass(pm, mlirCreateOcannlInferShapes());
  mlirPassManagerAddOwnedPass(pm, mlirCreateOcannlInferProjections());
  mlirPassManagerAddOwnedPass(pm, mlirCreateOcannlPlanSchedule());
  mlirPassManagerAddOwnedPass(pm, mlirCreateOcannlLowerToAffine());
  int ok = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)));
  if (ok) {
    mlirOperationPrint(mlirModuleGetOperation(module), print, stdout);
    printf("\n");
  }
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return ok ? 0 : 1;
}

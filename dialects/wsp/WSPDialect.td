//===- WSPDialect.td - workloads and schedules ----------------*- tablegen -*-===//
//
// The dialect of `htp-model-wsp`: a workload is a program of kernel tasks
// over iteration spaces. Loop constructors say which tasks exist and how
// they depend on each other by construction (`wsp.parallel`: independent,
// `wsp.sequential`: each iteration after the previous, `wsp.select`: the
// iterations a predicate tensor selects); axes are dense, ragged (per-element
// lengths) or sparse (CSR); `wsp.task` calls a kernel on tensor views;
// `wsp.when` predicates tasks on a tensor element read when they run.
// Dependencies through data are inferred from the tasks' views and access
// modes (`wsp-infer-access`); a schedule (`wsp-apply-schedule`) says how the
// tasks are dispatched.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_WSP_DIALECT
#define HTP_WSP_DIALECT

include "mlir/IR/OpBase.td"

def WSP_Dialect : Dialect {
  let name = "wsp";
  let cppNamespace = "::htp::wsp";
  let summary = "Workloads of kernel tasks over dense, ragged and sparse iteration spaces, and their schedules";
  let useDefaultTypePrinterParser = 1;
}

#endif // HTP_WSP_DIALECT

//===- CSPDialect.td - processes and channels -----------------*- tablegen -*-===//
//
// The dialect of `htp-model-csp`: a program of concurrent processes that
// exchange values only through bounded channels (Hoare's CSP with buffered
// channels, a Kahn network of bounded FIFOs). `csp.channel` makes a channel
// (or an array of them) of a declared depth; `csp.process` is one process
// (or `replicas` copies of it, each with its index); `csp.send`,
// `csp.recv` and `csp.consume` move one element. A full channel blocks its
// sender, an empty one its receiver. The protocol of a program (which
// process sends and receives on which channel, how often) is checked before
// anything runs (`csp-verify-protocol`).
//
//===----------------------------------------------------------------------===//

#ifndef HTP_CSP_DIALECT
#define HTP_CSP_DIALECT

include "mlir/IR/OpBase.td"

def CSP_Dialect : Dialect {
  let name = "csp";
  let cppNamespace = "::htp::csp";
  let summary = "Processes exchanging tiles through bounded channels (CSP)";
  let useDefaultTypePrinterParser = 1;
}

#endif // HTP_CSP_DIALECT

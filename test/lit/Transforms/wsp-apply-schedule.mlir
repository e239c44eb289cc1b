// A schedule on a workload (lib/htp-model-wsp/src/apply_schedule.rs).
// RUN: htp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(wsp-apply-schedule{workload=decode dispatch=work_stealing window=64 workers=2 batch=8 trace=/tmp/t.json})' | FileCheck %s
// RUN: htp-opt %s --split-input-file --pass-pipeline='builtin.module(wsp-apply-schedule)' | FileCheck %s --check-prefix=DEFAULT
// RUN: not htp-opt %s --pass-pipeline='builtin.module(wsp-apply-schedule{dispatch=fastest})' 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not htp-opt %s --pass-pipeline='builtin.module(wsp-apply-schedule{workload=nope})' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not htp-opt %s --pass-pipeline='builtin.module(wsp-apply-schedule{window=lots})' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not htp-opt %s --pass-pipeline='builtin.module(wsp-apply-schedule{batch=0})' 2>&1 | FileCheck %s --check-prefix=BATCH

// CHECK-LABEL: func.func @decode
// CHECK-SAME: wsp.schedule = {batch = 8 : i64, dispatch = "work_stealing", trace = "/tmp/t.json", window = 64 : i64, workers = 2 : i64}
// DEFAULT-LABEL: func.func @decode
// DEFAULT-SAME: wsp.schedule = {batch = 1 : i64, dispatch = "dynamic", window = 0 : i64, workers = 0 : i64}
func.func @decode() attributes {htp.model = "wsp"} {
  return
}

// Another workload, when one is named, and kernels are left alone.
// CHECK-LABEL: func.func @other
// CHECK-NOT: wsp.schedule
// DEFAULT-LABEL: func.func @other
// DEFAULT-SAME: wsp.schedule
func.func @other() attributes {htp.model = "wsp"} {
  return
}

// CHECK-LABEL: func.func @kernel
// CHECK-NOT: wsp.schedule
// DEFAULT-LABEL: func.func @kernel
// DEFAULT-NOT: wsp.schedule
func.func @kernel() attributes {htp.kernel} {
  return
}

// POLICY: error: wsp-apply-schedule: unknown dispatch policy 'fastest' (known: round_robin, affinity, work_stealing, dynamic)
// MISSING: error: wsp-apply-schedule: no workload named 'nope'
// OPTION: wsp-apply-schedule: window must be
// BATCH: wsp-apply-schedule: batch must be

// RUN: htp-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{part extents must be positive or ?, got 0}}
func.func @zero_extent() attributes {l = #layout.axe<[0@m:1] x [4@m:1]>} { return }

// -----

// expected-error @+1 {{part strides must be non-negative or ?, got -2}}
func.func @negative_stride() attributes {l = #layout.axe<[4@m:-2]>} { return }

// -----

// expected-error @+1 {{the memory axis `m` cannot hold replicas}}
func.func @memory_replica() attributes {l = #layout.axe<[4@m:1], replica = [m]>} { return }

// -----

// expected-error @+1 {{replica axis 'lane' is listed twice}}
func.func @twice() attributes {l = #layout.axe<[4@m:1], replica = [lane, lane]>} { return }

// -----

// expected-error @+1 {{axis 'core' both places parts and holds replicas}}
func.func @both() attributes {l = #layout.axe<[4@core:1, 4@m:1], replica = [core]>} { return }

// -----

// expected-error @+1 {{the offset must be non-negative, got -1}}
func.func @offset() attributes {l = #layout.axe<[4@m:1], offset = -1>} { return }

// -----

// expected-error @+1 {{axis names are identifiers, got '1x'}}
func.func @axis_name() attributes {l = #layout.axe<[4@m:1], replica = ["1x"]>} { return }

// -----

// expected-error @+1 {{expected `replica = [...]` or `offset = N`}}
func.func @unknown_key() attributes {l = #layout.axe<[4@m:1], stride = 2>} { return }

// -----

// expected-error @+1 {{the layout's dimension 1 covers 32 elements, the tile's 64}}
func.func @tile_size(%a: !tile.tile<16x64xf32, layout = #layout.axe<[16@m:32] x [32@m:1]>>) { return }

// -----

// expected-error @+1 {{a tile's layout has 2 dimensions, got 1}}
func.func @tile_rank(%a: !tile.tile<16x64xf32, layout = #layout.axe<[1024@m:1]>>) { return }

// -----

// expected-error @+1 {{a tile's layout places parts on the memory axis `m` only}}
func.func @tile_core(%a: !tile.tile<16x64xf32, layout = #layout.axe<[2@core:1, 8@m:64] x [64@m:1]>>) { return }

// -----

// expected-error @+1 {{the layout's dimension 0 covers ? elements, the tile's 16}}
func.func @tile_dynamic(%a: !tile.tile<16x64xf32, layout = #layout.axe<[?@m:64] x [64@m:1]>>) { return }

// -----

// expected-error @+1 {{the layout is given twice}}
func.func @twice_layout(%a: !tile.tile<16x64xf32, layout = #layout.axe<[16@m:64] x [64@m:1]>, layout = #layout.axe<[16@m:64] x [64@m:1]>>) { return }

// -----

// expected-error @+1 {{every dimension has at least one part}}
func.func @empty_dimension() attributes {l = #layout.axe<[] x [4@m:1]>} { return }

// -----

// expected-error @+1 {{expected `layout = #layout.axe<...>` (the valid region comes first, once)}}
func.func @valid_after_layout(%a: !tile.tile<16x64xf32, layout = #layout.axe<[16@m:64] x [64@m:1]>, valid = 8x64>) { return }

//! A CSP channel hand-over (not a test: nothing here asserts speed).
//!
//! `cargo bench -p htp-runtime --bench csp_channel` prints a markdown table: ns per element
//! handed from one thread to another through a channel of depth 2 and 8, for elements of 64 B
//! (a 1x16 f32 tile) and 16 KiB (a 16x256 f32 tile), through `htp_runtime::csp::Network` (what
//! CSP programs use on the cpu: copy in, copy out, deadlock detection) and through crossbeam's
//! bounded channel carrying the same bytes (`Box<[u8]>` moved, filled and read the same way),
//! measured in the same run. Each time is the best of `ROUNDS` runs, the two sides alternating.

use std::{hint::black_box, thread, time::Instant};

use htp_runtime::csp::{ChannelSpec, Network};

const ROUNDS: usize = 7;

fn elements_for(bytes: usize) -> usize {
    if bytes <= 64 {
        200_000
    } else {
        20_000
    }
}

/// Seconds per element through the network.
fn network(depth: usize, bytes: usize) -> f64 {
    let n = elements_for(bytes);
    let net = Network::new(vec![ChannelSpec { name: "a".into(), depth, bytes, count: 1 }], 2);
    let start = Instant::now();
    thread::scope(|s| {
        s.spawn(|| {
            let _p = net.enter(0);
            let mut source = vec![0u8; bytes];
            for i in 0..n {
                source[0] = i as u8;
                unsafe { net.send(0, source.as_ptr()) }.expect("send");
            }
        });
        s.spawn(|| {
            let _p = net.enter(1);
            let mut dest = vec![0u8; bytes];
            for _ in 0..n {
                unsafe { net.recv(0, dest.as_mut_ptr()) }.expect("recv");
                black_box(dest[0]);
            }
        });
    });
    start.elapsed().as_secs_f64() / n as f64
}

/// Seconds per element through crossbeam's bounded channel: the same copy in and copy out,
/// buffers recycled through a second channel as the network's slots are.
fn crossbeam(depth: usize, bytes: usize) -> f64 {
    let n = elements_for(bytes);
    let (tx, rx) = crossbeam_channel::bounded::<Box<[u8]>>(depth);
    let (free_tx, free_rx) = crossbeam_channel::bounded::<Box<[u8]>>(depth + 1);
    for _ in 0..depth {
        free_tx.send(vec![0u8; bytes].into_boxed_slice()).expect("fill");
    }
    let start = Instant::now();
    thread::scope(|s| {
        s.spawn(|| {
            let source = vec![0u8; bytes];
            for i in 0..n {
                let mut slot = free_rx.try_recv().unwrap_or_else(|_| vec![0u8; bytes].into_boxed_slice());
                slot.copy_from_slice(&source);
                slot[0] = i as u8;
                tx.send(slot).expect("send");
            }
        });
        s.spawn(|| {
            let mut dest = vec![0u8; bytes];
            for _ in 0..n {
                let slot = rx.recv().expect("recv");
                dest.copy_from_slice(&slot);
                black_box(dest[0]);
                let _ = free_tx.try_send(slot);
            }
        });
    });
    start.elapsed().as_secs_f64() / n as f64
}

fn main() {
    println!("| element | depth | htp csp::Network ns/element | crossbeam bounded ns/element | ratio |");
    println!("|---|---|---|---|---|");
    for bytes in [64usize, 16 * 1024] {
        for depth in [2usize, 8] {
            let (mut ours, mut theirs) = (f64::MAX, f64::MAX);
            for _ in 0..ROUNDS {
                ours = ours.min(network(depth, bytes));
                theirs = theirs.min(crossbeam(depth, bytes));
            }
            println!("| {bytes} B | {depth} | {:.0} | {:.0} | {:.2}x |", ours * 1e9, theirs * 1e9, ours / theirs);
        }
    }
}
